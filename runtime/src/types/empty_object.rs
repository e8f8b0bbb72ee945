use std::fmt;

use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;

/// An object whose schema names no properties and keeps no unknown fields
/// (`type: object` alone). The apiserver prunes every key of such an object, so it always
/// reads and writes as `{}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EmptyObject {}

impl serde::Serialize for EmptyObject {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_map(Some(0))?.end()
    }
}

impl<'de> serde::Deserialize<'de> for EmptyObject {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EmptyVisitor;

        impl<'de> Visitor<'de> for EmptyVisitor {
            type Value = EmptyObject;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EmptyObject, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(EmptyObject {})
            }
        }

        deserializer.deserialize_map(EmptyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prunes_every_key_and_writes_an_empty_object() {
        let v: EmptyObject = serde_json::from_str(r#"{"a": {"b": [1]}}"#).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), "{}");
        assert!(serde_json::from_str::<EmptyObject>("[]").is_err());
    }
}
