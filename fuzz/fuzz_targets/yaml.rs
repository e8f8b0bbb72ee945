//! The YAML loader and the validating read of its documents on any text: no panic, no stack
//! overflow (deep nesting is refused), no super-linear time (anchors are expanded with a limit).
#![no_main]

use kubeskema::decode::Options;
use libfuzzer_sys::fuzz_target;

#[path = "types.rs"]
mod types;

fuzz_target!(|text: &str| {
    if let Ok(docs) = kubeskema::yaml::decode_documents::<types::Widget>(text, &Options::strict()) {
        for (doc, read) in &docs {
            for issue in &read.issues {
                let _ = doc.nearest_position(&issue.path.pointer());
            }
        }
    }
});
