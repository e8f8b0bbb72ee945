//! The Kubernetes CEL libraries (semantics §9.2) as overloads on a `cel::Env`: lists, regex,
//! URLs, quantities, IPs and CIDRs, named formats, semantic versions and sets. cel 0.15
//! brings the standard library, the strings extension (v2) and cel-go's lists extension (v3);
//! what Kubernetes adds is here, one file per library, written against `cel::Value` and
//! adapted to the overload signature by `args::value_fn!`.

use cel::{DeclarationError, Env};

pub(crate) mod args;
mod duration;
pub(crate) mod format;
pub(crate) mod formats;
mod lists;
pub(crate) mod net;
mod quantity;
mod regex;
mod semver;
mod sets;
pub(crate) mod url;

/// Registers every Kubernetes library on `env`.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    format::register(env)?;
    lists::register(env)?;
    regex::register(env)?;
    url::register(env)?;
    quantity::register(env)?;
    net::register(env)?;
    formats::register(env)?;
    semver::register(env)?;
    sets::register(env)?;
    duration::register(env)?;
    Ok(())
}

/// Renames `duration(x)` to [`duration::GO_DURATION`] throughout `e`, and `s.format(args)` to cel-go
/// v2's formatter ([`format::lower`]).
pub(crate) fn lower(e: &mut cel::IdedExpr) {
    format::lower(e);
    duration::rename_duration(e);
}
