//! Phase 2, check: the apiserver's checks of each CRD (`kubeskema::crd::check`, where a user's
//! test can call them too), placed at the line and column of the CRD's file. A CRD version the
//! apiserver would refuse is not generated.

use kubeskema::crd::check::{Finding, LoweredRules};

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::load::LoadedCrd;

/// Checks every version of a CRD. Returns, per version index, whether it may be generated.
pub fn check_crd(loaded: &LoadedCrd, diags: &mut Vec<Diagnostic>) -> Vec<bool> {
    report(loaded, kubeskema::crd::check::check(&loaded.crd), diags)
}

/// [`check_crd`], keeping the rules as the checks compiled them: generation compiles them to
/// Rust from there.
pub fn check_crd_keeping_rules(loaded: &LoadedCrd, diags: &mut Vec<Diagnostic>) -> (Vec<bool>, LoweredRules) {
    let (checked, rules) = kubeskema::crd::check::check_keeping_rules(&loaded.crd);
    (report(loaded, checked, diags), rules)
}

fn report(loaded: &LoadedCrd, checked: kubeskema::crd::check::Checked, diags: &mut Vec<Diagnostic>) -> Vec<bool> {
    diags.extend(checked.findings.into_iter().map(|f| placed(loaded, f)));
    checked.accepted
}

/// A finding at its place in the CRD's file. The one finding without an error type is the
/// apiserver's warning about an unrecognized `format`.
fn placed(loaded: &LoadedCrd, f: Finding) -> Diagnostic {
    let severity = if f.warning { Severity::Warning } else { Severity::Error };
    let code = f.error_type.map_or(Code::UnrecognizedFormat, Code::Field);
    let mut d = loaded.diagnostic(severity, &f.pointer, code, f.field, f.detail);
    if let Some(version) = &f.version {
        d = d.in_version(version);
    }
    if let Some(help) = f.help {
        d = d.with_help(help);
    }
    d
}
