//! The whole run, without writing: load → check → model → emit, with every problem collected.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::check::{check_crd, check_crd_keeping_rules};
use crate::diagnostic::{Code, Diagnostic, Diagnostics, Severity};
use crate::emit::CelCount;
use crate::load::{LoadedCrd, load_crds};
use crate::model::ModuleBuilder;

/// The source of one generated module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedModule {
    /// The API group (`example.com`).
    pub group: String,
    /// The version (`v1`).
    pub version: String,
    /// The Rust module path (`["example_com", "v1"]`).
    pub path: Vec<String>,
    /// The formatted source, starting with the `@generated` header.
    pub code: String,
    /// How many structs and enums it declares (not counting those it re-exports from another
    /// module of the generation).
    pub types: usize,
    /// The CRD versions it holds (`widgets.example.com/v1`).
    pub crds: Vec<String>,
    /// The root types it declares: `(apiVersion, kind, Rust type name)`.
    pub roots: Vec<(String, String, String)>,
    /// Its CEL rules: how many were compiled to Rust, and why the others were not.
    pub cel: CelCount,
}

/// How a run behaves.
#[derive(Clone, Debug)]
pub struct Options {
    /// Schema descriptions become doc comments.
    pub docs: bool,
    /// Generate what can be generated and report refused CRD versions as errors beside the
    /// result, instead of generating nothing when anything is refused.
    pub keep_going: bool,
    /// Skip documents that are not CRDs with a warning, instead of refusing them.
    pub skip_non_crds: bool,
    /// kube-rs mode: root types implement `kube::Resource` and `kube::CustomResourceExt`, use
    /// k8s-openapi's `ObjectMeta`, and k8s-openapi's `Condition` and `ObjectReference` where
    /// the schema is theirs. Needs the runtime's `kube` feature.
    pub kube: bool,
    /// Every type a CEL rule sees gets a CEL value (`ToCel`), so that the rules compiled to
    /// Rust can be interpreted too (`kubeskema::cel::Cx::interpreted`): what the differential
    /// tests of the native code need. Off, only the types that rules which stay interpreted
    /// read have one (rules compiled to Rust read the typed fields), and the crate compiles
    /// faster.
    pub interpretable: bool,
    /// Rules compiled to Rust here (`native = ...`, with every type of the module known). Off,
    /// the derive compiles them (`kubeskema::cel::derived`), as it does for hand-written
    /// types: what the corpus differential of the derive's compiler builds (with
    /// `interpretable`, so that what its code does not read can defer to the interpreter).
    pub native_cel: bool,
    /// Every type also derives `kubeskema::ApplyConfiguration`: beside `Widget`, `WidgetApply`,
    /// the configuration a server-side apply sends (every field optional). Off by default: it
    /// adds a struct per struct to compile.
    pub apply_configurations: bool,
    /// The hub of a multi-version CRD's conversions, by CRD name (`widgets.example.com` →
    /// `v1`), where it is not the storage version. It must be a served version.
    pub hubs: BTreeMap<String, String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            docs: true,
            keep_going: false,
            skip_non_crds: false,
            kube: false,
            interpretable: false,
            native_cel: true,
            apply_configurations: false,
            hubs: BTreeMap::new(),
        }
    }
}

/// What a run produced: the modules, the warnings, the files read.
#[derive(Clone, Debug, Default)]
pub struct Generation {
    /// One module per group/version, sorted.
    pub modules: Vec<GeneratedModule>,
    /// Problems that did not stop generation.
    pub warnings: Vec<Diagnostic>,
    /// Every file that was read.
    pub inputs: Vec<PathBuf>,
    /// Errors of refused CRD versions (only with [`Options::keep_going`]).
    pub refused: Vec<Diagnostic>,
    /// How many CRDs were read.
    pub crd_count: usize,
    /// The conversions generated for CRDs with several versions.
    pub conversions: Vec<ConversionSummary>,
}

/// The conversions of one CRD with several versions: what its user writes by hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionSummary {
    /// `metadata.name`.
    pub crd: String,
    /// `spec.group`.
    pub group: String,
    /// `spec.names.kind`.
    pub kind: String,
    /// The hub version.
    pub hub: String,
    /// Each other version and how many trait methods its conversion needs.
    pub spokes: Vec<(String, usize)>,
    /// The CRD names a conversion webhook (else the apiserver only relabels `apiVersion`).
    pub webhook: bool,
}

/// A Rust module name for an API group or version (`monitoring.coreos.com` →
/// `monitoring_coreos_com`).
pub fn module_name(s: &str) -> String {
    let mut out: String =
        s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    // A keyword (a version may be `if`) or a crate's name the generated code uses.
    if crate::model::names::is_keyword(&out) || ["core", "std"].contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// Runs every phase but writing. `Err` holds every error (and the warnings) when any error
/// was found: nothing is generated from an input the apiserver would refuse.
pub fn run(paths: &[PathBuf], options: Options) -> Result<Generation, Diagnostics> {
    with_deep_stack(|| run_phases(paths, options))
}

/// Runs `f` on a stack with room for the deepest schema a CRD file can hold: the reader
/// refuses more than 128 levels, and the check, model and emit walks (and syn and prettyplease
/// under them) recurse over what is left; a 2 MiB thread (a test's, a build script's
/// worker) is not enough for that in a debug build.
pub(crate) fn with_deep_stack<T>(f: impl FnOnce() -> T) -> T {
    const DEEPEST_SCHEMA: usize = 16 << 20;
    stacker::maybe_grow(DEEPEST_SCHEMA, 2 * DEEPEST_SCHEMA, f)
}

fn run_phases(paths: &[PathBuf], options: Options) -> Result<Generation, Diagnostics> {
    let mut diags = Vec::new();
    let (crds, inputs) = load_crds(paths, options.skip_non_crds, 0, &crate::load::InputLimits::default(), &mut diags);
    let crds = dedupe(crds, &mut diags);

    // group/version → (kind → (crd index, version index)), sorted for deterministic output.
    let mut modules: BTreeMap<(String, String), BTreeMap<String, (usize, usize)>> = BTreeMap::new();
    let mut checked_rules = Vec::with_capacity(crds.len());
    for (ci, loaded) in crds.iter().enumerate() {
        let (ok, rules) = check_crd_keeping_rules(loaded, &mut diags);
        checked_rules.push(rules);
        for (vi, version) in loaded.crd.versions.iter().enumerate() {
            if !ok[vi] || version.schema.is_none() {
                continue;
            }
            let kinds = modules.entry((loaded.crd.group.clone(), version.name.clone())).or_default();
            if let Some(&(other, _)) = kinds.get(&loaded.crd.names.kind) {
                diags.push(
                    loaded
                        .diagnostic(
                            Severity::Error,
                            "/spec/names/kind",
                            Code::Conflict,
                            "spec.names.kind".into(),
                            format!(
                                "kind {} of group {} is also defined by {} in {}",
                                loaded.crd.names.kind,
                                loaded.crd.group,
                                crds[other].crd.name,
                                crds[other].file.display()
                            ),
                        )
                        .in_version(&version.name)
                        .with_help("generate the two CRDs in separate runs (they cannot share one module)"),
                );
                continue;
            }
            kinds.insert(loaded.crd.names.kind.clone(), (ci, vi));
        }
    }
    diags.extend(hub_problems(&crds, &options.hubs));
    let mut refused = Vec::new();
    if diags.iter().any(Diagnostic::is_error) {
        if !options.keep_going {
            diags.sort_by_key(|d| d.severity);
            return Err(Diagnostics(diags));
        }
        let (errors, warnings): (Vec<_>, Vec<_>) = diags.into_iter().partition(Diagnostic::is_error);
        refused = errors;
        diags = warnings;
    }

    // Distinct groups can map to one module name (`foo-bar.example.com`,
    // `foo.bar.example.com`): later ones, in the groups' sorted order, get `_2`, `_3`, ...
    let mut group_modules: BTreeMap<&String, String> = BTreeMap::new();
    let mut taken = crate::model::names::Taken::default();
    for (group, _) in modules.keys() {
        if !group_modules.contains_key(group) {
            group_modules.insert(group, taken.claim(&module_name(group), |base, n| format!("{base}_{n}")));
        }
    }
    // kube-rs mode writes each CRD's JSON once, in the module of its first generated version.
    let mut crd_json_version: BTreeMap<usize, &String> = BTreeMap::new();
    for ((_, version), kinds) in &modules {
        for &(ci, _) in kinds.values() {
            crd_json_version.entry(ci).or_insert(version);
        }
    }
    // Each CRD as read, made a value once (its schemas are read from the document's nodes):
    // schema pointers lead into it.
    let raws: Vec<std::borrow::Cow<'_, serde_json::Value>> = crds.iter().map(|c| c.crd.raw()).collect();
    let mut built = Vec::new();
    let mut paths = Vec::new();
    for ((group, version), kinds) in &modules {
        let mut builder = ModuleBuilder::new(group, version, options.docs, options.kube);
        for &(ci, vi) in kinds.values() {
            let loaded = &crds[ci];
            let schema = loaded.crd.versions[vi].schema.as_ref().expect("invariant: checked above");
            builder.add_root(
                &loaded.file.display().to_string(),
                &loaded.crd,
                schema,
                // The CRD's own JSON: schema pointers are relative to it (also inside a List).
                &raws[ci],
                Some(crd_json_version[&ci]).filter(|v| *v != version).map(|v| module_name(v)).as_deref(),
                &mut checked_rules[ci],
            );
        }
        let mut module = builder.finish();
        module.apply_configurations = options.apply_configurations;
        built.push(module);
        paths.push(vec![group_modules[group].clone(), module_name(version)]);
    }
    crate::model::share_types(&mut built);
    // Each CRD's generated versions, by the module that holds them, for its conversions.
    let mut versions: Vec<Vec<(String, usize)>> = vec![Vec::new(); crds.len()];
    for (mi, ((_, version), kinds)) in modules.iter().enumerate() {
        for &(ci, _) in kinds.values() {
            versions[ci].push((version.clone(), mi));
        }
    }
    let with_versions: Vec<_> = crds.iter().map(|c| &c.crd).zip(versions).collect();
    let conversions = crate::model::conversion::plan(&built, &with_versions, &options.hubs);
    for c in conversions.iter().filter(|c| !c.webhook) {
        if let Some(loaded) = crds.iter().find(|l| l.crd.name == c.crd) {
            diags.extend(relabeled_versions_differ(loaded, c));
        }
    }
    let emitted = crate::emit::emit_modules(&built, &paths, &conversions, options.interpretable, options.native_cel);
    let mut out = Vec::new();
    for ((module, path), (code, cel)) in built.iter().zip(paths).zip(emitted) {
        let roots = module
            .types
            .iter()
            .filter_map(|t| match t {
                crate::model::TypeDef::Struct(s) => {
                    s.root.as_ref().map(|r| (format!("{}/{}", r.group, r.version), r.kind.clone(), s.name.clone()))
                }
                crate::model::TypeDef::Enum(_) => None,
            })
            .collect();
        let mut header = String::from("// @generated by kubeskema-codegen ");
        header.push_str(env!("CARGO_PKG_VERSION"));
        header.push_str("; do not edit. Sources:\n");
        let mut crd_names = Vec::new();
        for s in &module.sources {
            // A line comment ends at a line break: input text here is made printable (one line,
            // no bidi control), or a file name could write code into the module.
            use kubeskema::issue::printable;
            header.push_str(&format!(
                "//   {} ({}/{})\n",
                printable(&s.file),
                printable(&s.crd),
                printable(&s.version)
            ));
            crd_names.push(format!("{}/{}", s.crd, s.version));
        }
        let code = format!("{header}\n{code}");
        out.push(GeneratedModule {
            group: module.group.clone(),
            version: module.version.clone(),
            path,
            code,
            types: module.shared.iter().filter(|s| s.is_none()).count(),
            crds: crd_names,
            roots,
            cel,
        });
    }
    let conversions = conversions
        .iter()
        .map(|c| ConversionSummary {
            crd: c.crd.clone(),
            group: c.group.clone(),
            kind: c.kind.clone(),
            hub: c.hub.version.clone(),
            spokes: c.spokes.iter().map(|s| (s.side.version.clone(), s.methods.len())).collect(),
            webhook: c.webhook,
        })
        .collect();
    Ok(Generation { modules: out, warnings: diags, inputs, refused, crd_count: crds.len(), conversions })
}

/// A hub named for a CRD that is not among the inputs, a version it does not have, or one it
/// does not serve: an error each, naming what there is.
fn hub_problems(crds: &[LoadedCrd], hubs: &BTreeMap<String, String>) -> Vec<Diagnostic> {
    use kubeskema::issue::printable;
    let mut out = Vec::new();
    for (name, version) in hubs {
        let Some(loaded) = crds.iter().find(|c| c.crd.name == *name) else {
            let names: Vec<String> = crds.iter().map(|c| printable(&c.crd.name).into_owned()).collect();
            out.push(
                Diagnostic::file_error(
                    std::path::Path::new("--hub"),
                    None,
                    Code::Config,
                    format!("--hub names CRD {}, which is not among the inputs", printable(name)),
                )
                .with_help(format!("name one of: {}", names.join(", "))),
            );
            continue;
        };
        let served: Vec<&str> = loaded.crd.versions.iter().filter(|v| v.served).map(|v| v.name.as_str()).collect();
        let problem = match loaded.crd.versions.iter().find(|v| v.name == *version) {
            None => "which it does not have",
            Some(v) if !v.served => "which it does not serve: the hub is the version every other converts through",
            Some(_) => continue,
        };
        out.push(
            loaded
                .diagnostic(
                    Severity::Error,
                    "/spec/versions",
                    Code::Config,
                    "spec.versions".into(),
                    format!("--hub names version {} of {}, {problem}", printable(version), printable(name)),
                )
                .with_help(format!("name a served version: {}", served.join(", "))),
        );
    }
    out
}

/// Under `strategy: None` the apiserver converts between versions by changing `apiVersion`
/// alone: where a spoke differs from the hub in what generated code cannot convert (the
/// places its `Conversion` trait has methods for), objects written in one version are served
/// in the other without what it cannot hold, or with what it cannot read.
fn relabeled_versions_differ(loaded: &LoadedCrd, c: &crate::model::conversion::Conversion) -> Option<Diagnostic> {
    use kubeskema::crd::compat::Class;
    let differing: Vec<String> = c
        .spokes
        .iter()
        .filter(|s| !s.methods.is_empty())
        .map(|s| {
            let mut places: Vec<&str> = s.methods.iter().map(|m| m.path.as_str()).collect();
            places.dedup();
            let shown: Vec<String> =
                places.iter().take(3).map(|p| kubeskema::issue::printable(p).into_owned()).collect();
            let more = if places.len() > 3 { format!(", and {} more", places.len() - 3) } else { String::new() };
            let n = places.len();
            let version = kubeskema::issue::printable(&s.side.version);
            format!("{version} at {n} place{} ({}{more})", if n == 1 { "" } else { "s" }, shown.join(", "))
        })
        .collect();
    if differing.is_empty() {
        return None;
    }
    let message = format!(
        "conversion strategy None changes only apiVersion between versions, and these differ from the storage version {} where a conversion is needed: {}; objects written in one version are served in the other without what it cannot hold",
        kubeskema::issue::printable(&c.hub.version),
        differing.join("; ")
    );
    let conversion = crate::emit::conversion_module(&c.kind);
    Some(
        loaded
            .diagnostic(Severity::Warning, "/spec", Code::Compat(Class::DropsData), "spec.conversion.strategy".into(), message)
            .with_help(format!(
                "give the CRD a conversion webhook (the hub module's generated {conversion}::Converter), or make the versions agree; a webhook patched in at deploy time (kustomize) belongs in the CRD generated from"
            )),
    )
}

/// What the apiserver would say of each CRD on its own (`cargo kubeskema check`): read errors,
/// then every CRD checked as if created alone. Unlike [`run`], two CRDs with one name are not a
/// conflict here: applied one after the other, the second replaces the first.
pub fn check(paths: &[PathBuf], skip_non_crds: bool) -> Vec<Diagnostic> {
    with_deep_stack(|| check_phases(paths, skip_non_crds))
}

fn check_phases(paths: &[PathBuf], skip_non_crds: bool) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    // Each CRD checked as soon as its file is read, and dropped: the documents of every file
    // are never in memory at once.
    let limits = crate::load::InputLimits::default();
    crate::load::load_crds_then(paths, skip_non_crds, 0, &limits, &mut diags, |loaded, diags| {
        with_deep_stack(|| check_crd(&loaded, diags));
    });
    diags.sort_by_key(|d| d.severity);
    diags
}

/// The same CRD given twice (two folders holding one file) is read once; two different CRDs
/// with one name are an error.
pub(crate) fn dedupe(crds: Vec<LoadedCrd>, diags: &mut Vec<Diagnostic>) -> Vec<LoadedCrd> {
    let mut out: Vec<LoadedCrd> = Vec::new();
    for c in crds {
        match out.iter().find(|o| o.crd.name == c.crd.name) {
            Some(o) if o.crd == c.crd => {}
            Some(o) => {
                let msg = format!("CRD {} is also defined, differently, in {}", c.crd.name, o.file.display());
                diags.push(
                    c.diagnostic(Severity::Error, "/metadata/name", Code::Conflict, "metadata.name".into(), msg)
                        .with_help("give only one definition of each CRD"),
                );
            }
            None => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Module names are identifiers whatever the group or version says (found by fuzzing: an
    /// empty version gave `_`, and a version may be a keyword such as `if`).
    #[test]
    fn module_names_are_identifiers() {
        assert_eq!(module_name("monitoring.coreos.com"), "monitoring_coreos_com");
        assert_eq!(module_name("v1beta1"), "v1beta1");
        assert_eq!(module_name("if"), "if_");
        assert_eq!(module_name(""), "__");
        assert_eq!(module_name("-"), "__");
        assert_eq!(module_name("2x"), "_2x");
        assert_eq!(module_name("std"), "std_");
        for name in ["if", "", "-", "_", "self", "fn", "x~y"] {
            syn::parse_str::<syn::Ident>(&module_name(name)).expect("an identifier");
        }
        assert_eq!(crate::model::CrdJson::const_name("endpoi~ts"), "CRD_JSON_ENDPOI_TS");
    }
}
