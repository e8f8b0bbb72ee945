//! Helpers that derived code calls. Not a stable API: anything here may change in any release.

pub use serde;
pub use serde_json;

/// `Some(i)` when `v` is a whole number that an int64 holds exactly (`3.0`, `1e3`), as the
/// apiserver's integer type check accepts it.
pub fn whole_f64_to_i64(v: f64) -> Option<i64> {
    // 2^63 is exactly representable; anything at or above it does not fit.
    if v.fract() == 0.0 && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&v) {
        Some(v as i64)
    } else {
        None
    }
}

/// Deserializes a schema `default` (carried as JSON text in an attribute) into the field's
/// type. Going through the type's own `Deserialize` makes defaults nest as the apiserver's
/// do: a default `{}` for an object gets that object's own property defaults filled in.
pub fn default_from_json<T, E>(field: &str, json: &str) -> Result<T, E>
where
    T: serde::de::DeserializeOwned,
    E: serde::de::Error,
{
    serde_json::from_str(json)
        .map_err(|e| E::custom(format_args!("the default of field `{field}` ({json}) does not fit its type: {e}")))
}
