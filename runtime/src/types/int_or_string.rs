use std::fmt;

use serde::de::{self, Visitor};

/// A value of a schema node marked `x-kubernetes-int-or-string: true`.
///
/// The apiserver keeps such values as they were decoded: an integer (int64, not Go's int32
/// of `intstr.IntOrString`, because custom resources are validated as unstructured JSON) or a
/// string. A whole-number float such as `1.0` is also accepted as an integer, as the
/// apiserver's type check does.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IntOrString {
    /// An integer value, such as `8080`.
    Int(i64),
    /// A string value, such as `"http"` or `"25%"`.
    String(String),
}

impl Default for IntOrString {
    fn default() -> Self {
        IntOrString::Int(0)
    }
}

impl fmt::Display for IntOrString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntOrString::Int(i) => write!(f, "{i}"),
            IntOrString::String(s) => f.write_str(s),
        }
    }
}

impl From<i64> for IntOrString {
    fn from(value: i64) -> Self {
        IntOrString::Int(value)
    }
}

impl From<i32> for IntOrString {
    fn from(value: i32) -> Self {
        IntOrString::Int(value.into())
    }
}

impl From<String> for IntOrString {
    fn from(value: String) -> Self {
        IntOrString::String(value)
    }
}

impl From<&str> for IntOrString {
    fn from(value: &str) -> Self {
        IntOrString::String(value.to_owned())
    }
}

impl serde::Serialize for IntOrString {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            IntOrString::Int(i) => serializer.serialize_i64(*i),
            IntOrString::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> serde::Deserialize<'de> for IntOrString {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A hand-written visitor, not `#[serde(untagged)]`: untagged buffers the input and
        // loses the deserializer's error positions.
        struct IntOrStringVisitor;

        impl Visitor<'_> for IntOrStringVisitor {
            type Value = IntOrString;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer or a string")
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(IntOrString::Int(v))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                i64::try_from(v).map(IntOrString::Int).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }

            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                crate::types::int_or_string::whole_f64_to_i64(v)
                    .map(IntOrString::Int)
                    .ok_or_else(|| E::invalid_type(de::Unexpected::Float(v), &self))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(IntOrString::String(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(IntOrString::String(v))
            }
        }

        deserializer.deserialize_any(IntOrStringVisitor)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_kinds_and_writes_them_back() {
        for (json, value) in [
            ("8080", IntOrString::Int(8080)),
            ("-1", IntOrString::Int(-1)),
            ("\"25%\"", IntOrString::String("25%".into())),
        ] {
            let parsed: IntOrString = serde_json::from_str(json).unwrap();
            assert_eq!(parsed, value);
            assert_eq!(serde_json::to_string(&parsed).unwrap(), json);
        }
    }

    #[test]
    fn whole_floats_are_integers_other_kinds_are_refused() {
        assert_eq!(serde_json::from_str::<IntOrString>("3.0").unwrap(), IntOrString::Int(3));
        for bad in ["1.5", "true", "null", "[]", "{}", "18446744073709551615"] {
            assert!(serde_json::from_str::<IntOrString>(bad).is_err(), "{bad}");
        }
    }
}
