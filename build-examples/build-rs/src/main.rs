//! Reads a Widget manifest into the generated types, shows what the schema gave it, and
//! writes it back as the apiserver would store it.

// `pub mod example_com { pub mod v1 { ... } }`, one module per group/version.
include!(concat!(env!("OUT_DIR"), "/kubeskema.rs"));

use example_com::v1::{Widget, WidgetSpecSourceOneOf};

const MANIFEST: &str = r#"{
  "apiVersion": "example.com/v1",
  "kind": "Widget",
  "metadata": {"name": "demo"},
  "spec": {
    "type": "Large",
    "ports": [{"name": "http", "port": 80}],
    "config": {"mode": "fast", "tuning": {"level": 3}},
    "source": {"oci": "ghcr.io/example/widget:1.0"}
  }
}"#;

fn main() {
    let widget: Widget = serde_json::from_str(MANIFEST).expect("the manifest fits the schema");
    let spec = widget.spec.as_ref().expect("spec is set");
    println!("{} {:?} with {} replicas (schema default)", Widget::KIND, spec.r#type, spec.replicas);
    if let Some(WidgetSpecSourceOneOf::Oci(image)) = spec.source.as_ref().and_then(|s| s.one_of()) {
        println!("from image {image}");
    }
    println!("{}", serde_json::to_string_pretty(&widget).expect("serializes"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_apply_and_unknown_config_survives() {
        let widget: Widget = serde_json::from_str(MANIFEST).unwrap();
        let spec = widget.spec.as_ref().unwrap();
        assert_eq!(spec.replicas, 1);
        let back = serde_json::to_value(&widget).unwrap();
        assert_eq!(back["spec"]["config"]["tuning"]["level"], 3);
        assert_eq!(back["spec"]["ports"][0]["protocol"], "TCP");
    }
}
