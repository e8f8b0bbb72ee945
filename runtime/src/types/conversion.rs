//! Converting a resource between its CRD's versions: the [`Converter`] a conversion webhook
//! answers with, and the lossless round trip generated conversions go through.
//!
//! A spoke (an older version) cannot hold everything the hub (the storage version) holds. On
//! the way down, when the spoke would lose something (converting it back up does not give
//! the hub object again), the hub object, without its metadata, is kept as JSON in the spoke's
//! annotation [`DATA_ANNOTATION`] (cluster-api's `cluster.x-k8s.io/conversion-data`
//! convention), its metadata emptied (the spoke's is the object's). On the way up the annotation is taken off, and what the spoke did not change
//! comes back from it: a three-way merge of the kept hub object, the hub object as the spoke
//! could carry it, and the spoke converted now. A field the client edited in the spoke
//! version wins; what it could not see is restored.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// What converts one object: `object` (in a version other than `desired_api_version`) into
/// `desired_api_version` (`group/version`), or why it cannot.
pub trait Converter {
    /// The object in `desired_api_version`, or a message for the `Failure`.
    fn convert(&self, object: Value, desired_api_version: &str) -> Result<Value, String>;

    /// The group and kind it converts (`None`: whatever it is sent). A review of another kind,
    /// or to another group, fails naming both, not converted as if it were this one.
    fn kind(&self) -> Option<(&str, &str)> {
        None
    }
}

/// The annotation a spoke carries the hub object in when it cannot hold all of it: the hub's
/// JSON, its `metadata` emptied.
pub const DATA_ANNOTATION: &str = "kubeskema.io/conversion-data";

/// Object metadata whose annotations a conversion reads and writes (kubeskema's `ObjectMeta`,
/// and k8s-openapi's with the `kube` feature).
pub trait Annotations {
    /// Removes annotation `key`, returning its value (an emptied map is left as the type
    /// leaves "no annotations").
    fn take_annotation(&mut self, key: &str) -> Option<String>;
    /// Sets annotation `key`.
    fn set_annotation(&mut self, key: &str, value: String);
}

impl Annotations for crate::types::meta::ObjectMeta {
    fn take_annotation(&mut self, key: &str) -> Option<String> {
        self.annotations.remove(key)
    }

    fn set_annotation(&mut self, key: &str, value: String) {
        self.annotations.insert(key.to_owned(), value);
    }
}

/// Hub `hub` down to a spoke with `down`; when `up` does not bring the spoke back to `hub`,
/// the hub (its metadata emptied: the spoke's is the object's) goes into the spoke's
/// [`DATA_ANNOTATION`]. `hub_meta` and `spoke_meta` reach an object's metadata.
pub fn down_keeping<H, S, M>(
    mut hub: H,
    down: impl Fn(H) -> S,
    up: impl Fn(S) -> H,
    hub_meta: impl Fn(&mut H) -> &mut M,
    spoke_meta: impl Fn(&mut S) -> &mut M,
) -> S
where
    H: Clone + PartialEq + Serialize,
    S: Clone,
    M: Annotations + Default,
{
    // A hub object carries no spoke's annotation; one that does (copied by a client) is not
    // kept twice.
    hub_meta(&mut hub).take_annotation(DATA_ANNOTATION);
    let mut spoke = down(hub.clone());
    if up(spoke.clone()) == hub {
        return spoke;
    }
    *hub_meta(&mut hub) = M::default();
    if let Ok(kept) = serde_json::to_string(&hub) {
        spoke_meta(&mut spoke).set_annotation(DATA_ANNOTATION, kept);
    }
    spoke
}

/// Spoke `spoke` up to the hub with `up`, restoring from its [`DATA_ANNOTATION`] (taken off)
/// what the spoke could not hold: fields the spoke changed since it came down are the spoke's,
/// the rest the kept hub object's. An annotation that is not a hub object (edited by hand)
/// restores nothing.
pub fn up_restoring<H, S, M>(
    mut spoke: S,
    up: impl Fn(S) -> H,
    down: impl Fn(H) -> S,
    spoke_meta: impl Fn(&mut S) -> &mut M,
    hub_meta: impl Fn(&mut H) -> &mut M,
) -> H
where
    H: Clone + PartialEq + Serialize + DeserializeOwned,
    M: Annotations + Clone,
{
    let kept = spoke_meta(&mut spoke).take_annotation(DATA_ANNOTATION);
    let mut now = up(spoke);
    let Some(kept) = kept else { return now };
    // Read as the hub's type straight from the text; its metadata is the object's now.
    let Ok(mut kept_hub) = serde_json::from_str::<H>(&kept) else { return now };
    *hub_meta(&mut kept_hub) = hub_meta(&mut now).clone();
    let carried = up(down(kept_hub.clone()));
    if carried == now {
        return kept_hub;
    }
    // The spoke changed something: merged as JSON, key by key.
    let (Ok(base), Ok(carried), Ok(now_json)) =
        (serde_json::to_value(&kept_hub), serde_json::to_value(&carried), serde_json::to_value(&now))
    else {
        return now;
    };
    match merge3(Some(&base), Some(&carried), Some(&now_json)) {
        Some(merged) => serde_json::from_value(merged).unwrap_or(now),
        None => now,
    }
}

/// The three-way merge of [`up_restoring`]: `base` the kept hub, `carried` what the spoke
/// could carry of it, `now` the spoke converted now. Where `now` equals `carried` the spoke
/// changed nothing and `base` stands; where both are objects, key by key; elsewhere `now`.
/// Lists are values: a list the spoke changed is the spoke's, whole.
pub fn merge3(base: Option<&Value>, carried: Option<&Value>, now: Option<&Value>) -> Option<Value> {
    if carried == now {
        return base.cloned();
    }
    match (base, carried, now) {
        (base @ (None | Some(Value::Object(_))), Some(Value::Object(c)), Some(Value::Object(n))) => {
            let b = base.and_then(Value::as_object);
            let mut keys: Vec<&String> = n.keys().chain(c.keys()).chain(b.into_iter().flat_map(Map::keys)).collect();
            keys.sort();
            keys.dedup();
            let merged = keys
                .into_iter()
                .filter_map(|k| merge3(b.and_then(|b| b.get(k)), c.get(k), n.get(k)).map(|v| (k.clone(), v)))
                .collect();
            Some(Value::Object(merged))
        }
        _ => now.cloned(),
    }
}

/// The apiserver's conversion under a CRD's `strategy: None`: the object with `apiVersion`
/// changed and nothing else, read as the other version's type (what that type does not hold
/// is left out; what it cannot read is the error).
pub fn relabel<F: Serialize, T: DeserializeOwned>(object: &F, api_version: &str) -> Result<T, String> {
    let mut json = serde_json::to_value(object).map_err(|e| e.to_string())?;
    if let Some(map) = json.as_object_mut() {
        map.insert("apiVersion".into(), Value::from(api_version));
    }
    serde_json::from_value(json).map_err(|e| e.to_string())
}

/// An object read from JSON as a version's type, for a converter: the reader's message
/// otherwise.
pub fn read<T: DeserializeOwned>(object: Value) -> Result<T, String> {
    serde_json::from_value(object).map_err(|e| e.to_string())
}

/// An object as JSON, for a converter's answer.
pub fn write<T: Serialize>(object: &T) -> Result<Value, String> {
    serde_json::to_value(object).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge3_keeps_what_the_spoke_did_not_change() {
        let base = json!({"spec": {"size": 3, "hubOnly": "x", "list": [1, 2]}});
        let carried = json!({"spec": {"size": 3, "list": [1, 2]}});
        // Unchanged: the base, whole.
        assert_eq!(merge3(Some(&base), Some(&carried), Some(&carried)), Some(base.clone()));
        // `size` edited: the edit, and what the spoke could not see.
        let now = json!({"spec": {"size": 5, "list": [1, 2]}});
        assert_eq!(
            merge3(Some(&base), Some(&carried), Some(&now)),
            Some(json!({"spec": {"size": 5, "hubOnly": "x", "list": [1, 2]}}))
        );
        // A field removed in the spoke is removed.
        let now = json!({"spec": {"list": [1, 2]}});
        assert_eq!(
            merge3(Some(&base), Some(&carried), Some(&now)),
            Some(json!({"spec": {"hubOnly": "x", "list": [1, 2]}}))
        );
        // A list edited is the spoke's.
        let now = json!({"spec": {"size": 3, "list": [2]}});
        assert_eq!(
            merge3(Some(&base), Some(&carried), Some(&now)),
            Some(json!({"spec": {"size": 3, "hubOnly": "x", "list": [2]}}))
        );
    }
}
