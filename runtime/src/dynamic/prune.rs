//! Pruning of unknown fields, as the apiserver does it before defaulting and validation
//! (`apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go`), and of `null`s
//! (`defaulting/prunenulls.go`), which follows it.
//!
//! The quirks kept on purpose:
//! - the root of a custom resource is treated as an embedded resource: its `apiVersion`,
//!   `kind` and `metadata` are left alone;
//! - `x-kubernetes-preserve-unknown-fields` keeps unknown keys but specified properties are
//!   still pruned normally, and preservation is inherited by array items;
//! - `additionalProperties` given as a boolean keeps every key but empties object and array
//!   values under it (they are pruned against no schema).

use serde_json::Value;

use crate::report::path::{At, Path};
use crate::schema::Schema;

use crate::check::objectmeta::RESOURCE_META_FIELDS as META;

/// Prunes a whole custom resource against its version's root schema. Returns the paths of
/// the fields that were removed (`spec.foo`, `spec.list[1].b`), sorted.
pub fn prune_resource(object: &mut Value, root: &Schema) -> Vec<Path> {
    resource(object, root, false)
}

/// [`prune_resource`] and then [`prune_nulls`], in one walk: what the apiserver's decoder does
/// in two (the second walk was a sixteenth of the dynamic validator's time on an HTTPRoute,
/// issue 54). Returns the paths pruned as unknown (nulls are not reported).
pub fn prune_resource_and_nulls(object: &mut Value, root: &Schema) -> Vec<Path> {
    resource(object, root, true)
}

fn resource(object: &mut Value, root: &Schema, nulls: bool) -> Vec<Path> {
    let mut walk = Walk { nulls, pruned: Vec::new() };
    walk.prune(object, Mode::of(Some(root), true), &At::ROOT);
    sorted(walk.pruned)
}

/// The apiserver's order: by the dotted path it prints.
fn sorted(pruned: Vec<Path>) -> Vec<Path> {
    let mut keyed: Vec<(String, Path)> = pruned.into_iter().map(|p| (p.openapi(), p)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, p)| p).collect()
}

/// Prunes a value against the schema node it belongs to (used for defaults, which the
/// apiserver prunes when it loads the CRD).
pub fn prune_value(value: &mut Value, schema: &Schema) {
    let mut walk = Walk { nulls: false, pruned: Vec::new() };
    let base = Path::root().key("value");
    walk.prune(value, Mode::of(Some(schema), schema.embedded_resource), &At::under(&base));
}

/// Deletes the `null` entries of non-nullable, non-defaulted fields (`prunenulls.go`).
pub fn prune_nulls(value: &mut Value, schema: &Schema) {
    let mut walk = Walk { nulls: true, pruned: Vec::new() };
    walk.prune(value, Mode::Nulls { schema }, &At::ROOT);
}

/// A `null` map value that its schema neither allows nor defaults: null pruning deletes it.
fn drops_null(is_null: bool, schema: &Schema) -> bool {
    is_null && !schema.nullable && schema.default.is_none()
}

/// How a value is pruned, by the schema it falls under: what the walk over a `Value`
/// ([`Walk`]) and the selection of a document as read ([`Pruning`]) both ask, so that they
/// prune alike.
#[derive(Clone, Copy)]
enum Mode<'s> {
    /// Pruned against `schema`; with none, an object loses every key (each reported).
    Prune { schema: Option<&'s Schema>, is_resource: bool },
    /// Under `x-kubernetes-preserve-unknown-fields`: unknown keys stay as they are; specified
    /// ones are pruned by their schema.
    Preserve { schema: &'s Schema, is_resource: bool },
    /// Null pruning alone: a resource's `apiVersion`, `kind` and `metadata`, which pruning
    /// leaves and null pruning does not.
    Nulls { schema: &'s Schema },
    /// Left as it is.
    Keep,
}

/// What becomes of a mapping entry.
enum Fate<'s> {
    /// It stays, pruned as `mode` says; `map_key`: the step down is a map key
    /// (`additionalProperties`), not a property.
    Stays { mode: Mode<'s>, map_key: bool },
    /// Null pruning deletes it.
    Null,
    /// Pruning deletes it as unknown, and says so.
    Unknown,
    /// Pruning deletes it without saying so (a root meta field the schema does not name).
    Gone,
}

impl<'s> Mode<'s> {
    /// A value pruned against `schema`.
    #[inline]
    fn of(schema: Option<&'s Schema>, is_resource: bool) -> Mode<'s> {
        match schema {
            Some(schema) if schema.preserves_unknown_fields() => Mode::Preserve { schema, is_resource },
            _ => Mode::Prune { schema, is_resource },
        }
    }

    /// The entry `key` of an object pruned so (`is_null`: its value is `null`; `nulls`: null
    /// pruning too; `top_level`: the object is the resource's root).
    #[inline]
    fn entry(self, key: &str, is_null: bool, nulls: bool, top_level: bool) -> Fate<'s> {
        match self {
            Mode::Keep => Fate::Stays { mode: Mode::Keep, map_key: false },
            Mode::Nulls { schema } => match schema.schema_of_key(key) {
                Some(s) if drops_null(is_null, s) => Fate::Null,
                Some(schema) => Fate::Stays { mode: Mode::Nulls { schema }, map_key: false },
                None => Fate::Stays { mode: Mode::Keep, map_key: false },
            },
            Mode::Prune { schema: None, .. } => Fate::Unknown,
            Mode::Prune { schema: Some(s), is_resource } => {
                Self::known(s, is_resource, key, is_null, nulls).unwrap_or(match top_level && META.contains(&key) {
                    true => Fate::Gone,
                    false => Fate::Unknown,
                })
            }
            Mode::Preserve { schema, is_resource } => Self::known(schema, is_resource, key, is_null, nulls)
                .unwrap_or(Fate::Stays { mode: Mode::Keep, map_key: false }),
        }
    }

    /// The fate of the entry `key` of an object under `s` that `s` knows; `None` for a key
    /// it does not, which pruning removes and preserved unknown fields keep.
    #[inline]
    fn known(s: &'s Schema, is_resource: bool, key: &str, is_null: bool, nulls: bool) -> Option<Fate<'s>> {
        let (schema, map_key) = if is_resource && META.contains(&key) {
            // Pruning leaves a resource's meta fields, null pruning does not.
            return Some(match s.schema_of_key(key) {
                Some(m) if nulls && drops_null(is_null, m) => Fate::Null,
                Some(schema) if nulls => Fate::Stays { mode: Mode::Nulls { schema }, map_key: false },
                _ => Fate::Stays { mode: Mode::Keep, map_key: false },
            });
        } else if let Some(p) = s.properties.get(key) {
            (Some(p), false)
        } else {
            (s.additional_properties.as_ref()?.schema(), true)
        };
        if nulls && schema.is_some_and(|s| drops_null(is_null, s)) {
            return Some(Fate::Null);
        }
        Some(Fate::Stays { mode: Mode::of(schema, schema.is_some_and(|s| s.embedded_resource)), map_key })
    }

    /// A list's items pruned so. Preservation is inherited by the items.
    #[inline]
    fn item(self) -> Mode<'s> {
        match self {
            Mode::Prune { schema, .. } => {
                let items = schema.and_then(|s| s.items.as_deref());
                Mode::of(items, items.is_some_and(|s| s.embedded_resource))
            }
            Mode::Preserve { schema, .. } => match schema.items.as_deref() {
                Some(schema) => Mode::Preserve { schema, is_resource: schema.embedded_resource },
                None => Mode::Keep,
            },
            Mode::Nulls { schema } => schema.items.as_deref().map_or(Mode::Keep, |schema| Mode::Nulls { schema }),
            Mode::Keep => Mode::Keep,
        }
    }
}

/// A walk pruning a `Value` in place: whether null pruning too, and what it pruned.
struct Walk {
    nulls: bool,
    pruned: Vec<Path>,
}

impl Walk {
    /// `path` becomes a [`Path`] only where a field is pruned.
    fn prune(&mut self, value: &mut Value, mode: Mode<'_>, path: &At<'_>) {
        match value {
            Value::Object(map) if !matches!(mode, Mode::Keep) => {
                let top_level = path.is_root();
                // Not `Map::retain`: the B-tree's takes every entry out and back
                // (`ExtractIf`), a seventh of the dynamic validator's time on a large HTTPRoute
                // (issue 54) where nothing was removed. Entries are seldom removed.
                let mut gone = Vec::new();
                for (k, v) in map.iter_mut() {
                    match mode.entry(k, v.is_null(), self.nulls, top_level) {
                        // Only what has entries or items is pruned further.
                        Fate::Stays { mode, map_key } if matches!(v, Value::Object(_) | Value::Array(_)) => {
                            self.prune(v, mode, &if map_key { path.key(k) } else { path.field(k) });
                        }
                        Fate::Stays { .. } => {}
                        Fate::Unknown => {
                            self.pruned.push(path.field(k).to_path());
                            gone.push(k.clone());
                        }
                        Fate::Null | Fate::Gone => gone.push(k.clone()),
                    }
                }
                for k in gone {
                    map.remove(&k);
                }
            }
            Value::Array(items) if !matches!(mode, Mode::Keep) => {
                let mode = mode.item();
                for (i, item) in items.iter_mut().enumerate() {
                    self.prune(item, mode, &path.index(i));
                }
            }
            _ => {}
        }
    }
}

/// Pruning and null pruning of a custom resource as its document is converted
/// ([`crate::read::yaml::Document::value_selected`]): what they delete is never made a value.
/// The same decisions as [`prune_resource_and_nulls`], made as the conversion goes down; but
/// root `metadata` is converted whole, and null-pruned by [`Pruning::finish`]: the apiserver
/// turns it through `ObjectMeta` first, which the caller does in between.
#[cfg(feature = "yaml")]
pub struct Pruning<'s, 't> {
    /// How the root is pruned.
    root: Mode<'s>,
    /// The modes and steps down from the root to the value being converted.
    stack: Vec<(Mode<'s>, Down<'t>)>,
    pruned: Vec<Path>,
}

/// A step down a document, as a [`Path`] spells it.
#[cfg(feature = "yaml")]
#[derive(Clone, Copy)]
enum Down<'t> {
    Field(&'t str),
    Key(&'t str),
    Index(usize),
}

#[cfg(feature = "yaml")]
impl<'s, 't> Pruning<'s, 't> {
    /// Pruning a resource whose root schema is `root`.
    pub fn of_resource(root: &'s Schema) -> Self {
        Pruning { root: Mode::of(Some(root), true), stack: Vec::new(), pruned: Vec::new() }
    }

    /// No pruning: everything is kept.
    pub fn none() -> Self {
        Pruning { root: Mode::Keep, stack: Vec::new(), pruned: Vec::new() }
    }

    /// Null-prunes root `metadata` of the converted `object`, as [`prune_resource_and_nulls`]
    /// does; returns the paths pruned as unknown, sorted as it returns them.
    pub fn finish(self, object: &mut Value) -> Vec<Path> {
        if let Value::Object(map) = object
            && let Some(meta) = map.get_mut("metadata")
        {
            match self.root.entry("metadata", meta.is_null(), true, true) {
                Fate::Stays { mode, .. } => {
                    let mut walk = Walk { nulls: true, pruned: Vec::new() };
                    walk.prune(meta, mode, &At::ROOT);
                }
                Fate::Null | Fate::Unknown | Fate::Gone => {
                    map.remove("metadata");
                }
            }
        }
        sorted(self.pruned)
    }

    /// How the value being converted is pruned.
    fn mode(&self) -> Mode<'s> {
        self.stack.last().map_or(self.root, |&(mode, _)| mode)
    }

    fn path(&self) -> Path {
        self.stack.iter().fold(Path::root(), |path, (_, down)| match *down {
            Down::Field(k) => path.key(k),
            Down::Key(k) => path.map_key(k),
            Down::Index(i) => path.index(i),
        })
    }
}

#[cfg(feature = "yaml")]
impl<'t> crate::read::yaml::Select<'t> for Pruning<'_, 't> {
    fn key(&mut self, key: &'t str, is_null: bool) -> bool {
        let top_level = self.stack.is_empty();
        let mode = self.mode();
        if top_level && key == "metadata" {
            self.stack.push((Mode::Keep, Down::Field(key)));
            return true;
        }
        match mode.entry(key, is_null, true, top_level) {
            Fate::Stays { mode, map_key } => {
                self.stack.push((mode, if map_key { Down::Key(key) } else { Down::Field(key) }));
                true
            }
            Fate::Unknown => {
                let path = self.path().key(key);
                self.pruned.push(path);
                false
            }
            Fate::Null | Fate::Gone => false,
        }
    }

    fn item(&mut self, index: usize) {
        let mode = self.mode();
        self.stack.push((mode.item(), Down::Index(index)));
    }

    fn up(&mut self) {
        self.stack.pop();
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    fn printed(paths: &[Path]) -> Vec<String> {
        paths.iter().map(Path::openapi).collect()
    }

    /// A map key with dots stays one key: its pointer is `/spec/labels/example.com~1x/extra`.
    #[test]
    fn pruned_places_are_paths_not_dotted_strings() {
        let root = schema(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "labels": {"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "string"}}}}}}}}));
        let mut obj = json!({"spec": {"labels": {"example.com/x": {"a": "1", "extra": 2}}, "example.com/extra": 1}});
        let pruned = prune_resource(&mut obj, &root);
        assert_eq!(printed(&pruned), vec!["spec.example.com/extra", "spec.labels.example.com/x.extra"]);
        assert_eq!(
            pruned.iter().map(Path::pointer).collect::<Vec<_>>(),
            vec!["/spec/example.com~1extra", "/spec/labels/example.com~1x/extra"]
        );
    }

    /// JSON of objects with keys from `keys` (names a test's schemas know, and some they do
    /// not), lists, and `null`s among the values.
    pub(crate) fn json_with_keys(keys: Vec<&'static str>) -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let key = proptest::sample::select(keys);
        let leaf = prop_oneof![Just(Value::Null), Just(json!(1)), Just(json!("s"))];
        leaf.prop_recursive(5, 64, 6, move |inner| {
            prop_oneof![
                proptest::collection::btree_map(key.clone(), inner.clone(), 0..6).prop_map(|m| json!(m)),
                proptest::collection::vec(inner, 0..3).prop_map(Value::from),
            ]
        })
    }

    fn value() -> impl proptest::strategy::Strategy<Value = Value> {
        json_with_keys(vec!["apiVersion", "kind", "metadata", "spec", "a", "n", "d", "l", "m", "b", "x", "e", "z"])
    }

    proptest::proptest! {
        /// One walk prunes and null-prunes as pruning and then null pruning do: under
        /// preserved unknown fields, boolean and schema `additionalProperties`, embedded
        /// resources, and a resource's meta fields, which pruning leaves and null pruning not.
        #[test]
        fn pruning_and_null_pruning_in_one_walk_is_both_in_turn(spec in value(), top in value()) {
            let mut object = top;
            if let Value::Object(map) = &mut object {
                map.insert("spec".into(), spec);
            }
            for root in roots() {
                let (mut one, mut two) = (object.clone(), object.clone());
                let pruned_once = prune_resource_and_nulls(&mut one, &root);
                let pruned = prune_resource(&mut two, &root);
                prune_nulls(&mut two, &root);
                proptest::prop_assert_eq!(&one, &two);
                proptest::prop_assert_eq!(printed(&pruned_once), printed(&pruned));
            }
        }
    }

    /// The root schemas the one-walk test prunes by: with meta fields specified, preserving
    /// unknown fields at the root, and a root of additional properties.
    fn roots() -> Vec<Schema> {
        let node = json!({"type": "object", "properties": {
            "a": {"type": "string"}, "n": {"type": "integer", "nullable": true},
            "d": {"type": "integer", "default": 1},
            "l": {"type": "array", "items": {"type": "object", "properties": {
                "a": {"type": "string"}, "n": {"type": "string", "nullable": true}}}},
            "m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"a": {"type": "integer"}}}},
            "b": {"type": "object", "additionalProperties": true},
            "x": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
                "a": {"type": "integer"},
                "l": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}}},
            "e": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
                "kind": {"type": "string"}, "metadata": {"type": "object", "properties": {"n": {"type": "string"}}},
                "spec": {"type": "object", "properties": {"a": {"type": "string"}}}}}}});
        [
            json!({"type": "object", "properties": {"apiVersion": {"type": "string"},
                "metadata": {"type": "object", "properties": {"n": {"type": "string"}}}, "spec": node.clone()}}),
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {
                "kind": {"type": "string", "nullable": true}, "spec": node.clone()}}),
            json!({"type": "object", "additionalProperties": node}),
        ]
        .into_iter()
        .map(|root| Schema::parse(&root, "").0)
        .collect()
    }

    /// A document pruned as it is converted: its value and the paths pruned, to be compared
    /// with the whole value pruned in place.
    #[cfg(feature = "yaml")]
    fn pruned_as_converted(text: &str, root: &Schema) -> (Value, Vec<String>) {
        let mut read = Vec::new();
        crate::read::yaml::read_each(text, false, &mut |doc| read.push(doc)).unwrap();
        let mut pruning = Pruning::of_resource(root);
        let mut value = read[0].value_selected(&mut pruning);
        let pruned = pruning.finish(&mut value);
        (value, printed(&pruned))
    }

    /// The whole value of a document pruned in place.
    #[cfg(feature = "yaml")]
    fn pruned_in_place(text: &str, root: &Schema) -> (Value, Vec<String>) {
        let mut value = crate::read::yaml::parse_documents(text).unwrap().remove(0).value;
        let pruned = prune_resource_and_nulls(&mut value, root);
        (value, printed(&pruned))
    }

    #[cfg(feature = "yaml")]
    proptest::proptest! {
        /// Pruning a document as it is converted leaves what pruning the whole value leaves,
        /// and says the same places were pruned.
        #[test]
        fn pruning_as_the_document_converts_is_pruning_in_place(spec in value(), top in value()) {
            let mut object = top;
            if let Value::Object(map) = &mut object {
                map.insert("spec".into(), spec);
            }
            let text = object.to_string();
            for root in roots() {
                proptest::prop_assert_eq!(pruned_as_converted(&text, &root), pruned_in_place(&text, &root));
            }
        }
    }

    /// What only YAML writes: keys written twice (the last one counts, kept or pruned), `<<`
    /// merges whose keys the mapping's own hide even where those are pruned, aliases, `.nan`
    /// (null once converted).
    #[cfg(feature = "yaml")]
    #[test]
    fn pruning_as_the_document_converts_reads_yaml_as_its_value_is_read() {
        for text in [
            "spec: {a: x, a: null, 'n': 1, 'n': null, zz: 1, zz: 2, d: null}\nmetadata: {'n': null, o: 1}",
            "spec: {a: x, junk: 1, a: y}\nkind: null\nkind: K",
            "base: &b {a: x, junk: 1, 'n': null}\nspec:\n  <<: *b\n  junk: 2\n  a: z",
            "x: &x {'n': null, q: 1}\nspec:\n  <<: [{a: x, m: {k: {a: 1, q: 2}}}, {a: y, zz: 3}]\n  'n': .nan\n  l: [{a: 1, q: 1}, *x]",
            "spec: {b: {o: {a: 1}, l: [{a: 1}, 2], s: x}, x: {free: {deep: 1}, a: 1, l: [{'n': 1, q: 2}]}}",
            "spec: {e: {apiVersion: v1, kind: null, metadata: {'n': null, q: 1}, spec: {a: 1, q: 2}, z: 1}}",
            "metadata: null\nspec: null\nstatus: {a: 1}",
            "- {a: 1}\n- 2",
        ] {
            for root in roots() {
                assert_eq!(pruned_as_converted(text, &root), pruned_in_place(text, &root), "{text}");
            }
        }
    }

    fn schema(v: Value) -> Schema {
        let (s, errors) = Schema::parse(&v, "");
        assert!(errors.is_empty(), "{errors:?}");
        s
    }

    #[test]
    fn unknown_fields_are_removed_and_reported() {
        let root = schema(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "string"},
                "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}}}}}}));
        let mut obj = json!({"apiVersion": "v", "kind": "K", "metadata": {"name": "n"},
            "spec": {"a": "x", "b": 1, "list": [{"x": 1}, {"x": 2, "y": 3}]}, "unknown": true});
        let pruned = prune_resource(&mut obj, &root);
        assert_eq!(printed(&pruned), vec!["spec.b", "spec.list[1].y", "unknown"]);
        assert_eq!(
            obj,
            json!({"apiVersion": "v", "kind": "K", "metadata": {"name": "n"},
            "spec": {"a": "x", "list": [{"x": 1}, {"x": 2}]}})
        );
    }

    #[test]
    fn preservation_keeps_unknown_keys_but_not_inside_specified_children() {
        let root = schema(json!({"type": "object", "properties": {"spec": {
            "type": "object", "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"known": {"type": "object", "properties": {"a": {"type": "string"}}}}}}}));
        let mut obj = json!({"spec": {"free": {"deep": 1}, "known": {"a": "x", "b": 2}}});
        assert_eq!(printed(&prune_resource(&mut obj, &root)), vec!["spec.known.b"]);
        assert_eq!(obj, json!({"spec": {"free": {"deep": 1}, "known": {"a": "x"}}}));
    }

    #[test]
    fn preservation_is_inherited_by_array_items() {
        let root = schema(json!({"type": "object", "properties": {"l": {
            "type": "array", "x-kubernetes-preserve-unknown-fields": true,
            "items": {"type": "object", "properties": {"a": {"type": "object"}}}}}}));
        let mut obj = json!({"l": [{"a": {"gone": 1}, "kept": 2}]});
        prune_resource(&mut obj, &root);
        assert_eq!(obj, json!({"l": [{"a": {}, "kept": 2}]}));
    }

    #[test]
    fn boolean_additional_properties_keep_keys_but_empty_objects() {
        let root = schema(json!({"type": "object", "properties": {"m": {
            "type": "object", "additionalProperties": true}}}));
        let mut obj = json!({"m": {"s": "x", "o": {"a": 1}, "l": [{"a": 1}, 2]}});
        prune_resource(&mut obj, &root);
        assert_eq!(obj, json!({"m": {"s": "x", "o": {}, "l": [{}, 2]}}));
    }

    #[test]
    fn embedded_resources_keep_their_meta_fields() {
        let root = schema(json!({"type": "object", "properties": {"t": {
            "type": "object", "x-kubernetes-embedded-resource": true,
            "properties": {"spec": {"type": "object"}}}}}));
        let mut obj = json!({"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"x": 1}, "spec": {"a": 1}, "z": 1}});
        assert_eq!(printed(&prune_resource(&mut obj, &root)), vec!["t.spec.a", "t.z"]);
        assert_eq!(obj, json!({"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"x": 1}, "spec": {}}}));
    }
}
