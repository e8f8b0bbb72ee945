//! The validating read on any bytes: no panic, no stack overflow, no super-linear time; and
//! it agrees with plain deserialization + validation (plain `Deserialize` is the same reader,
//! stopping at its first issue): what plain serde reads and validates cleanly has no issues,
//! and a clean read's value round-trips through plain serde and validates clean. Text that is
//! not UTF-8 is one issue and no value.
#![no_main]

use kubeskema::Validate;
use kubeskema::decode::{Defaults, DuplicateKeys, Options, UnknownFields, from_slice};
use libfuzzer_sys::fuzz_target;

#[path = "types.rs"]
mod types;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, json)) = data.split_first() else { return };
    let options = Options {
        duplicate_keys: [DuplicateKeys::Error, DuplicateKeys::FirstWins, DuplicateKeys::LastWins]
            [usize::from(mode % 3)],
        unknown_fields: [UnknownFields::Prune, UnknownFields::Strict, UnknownFields::Preserve]
            [usize::from(mode / 3 % 3)],
        defaults: [Defaults::Apply, Defaults::Annotate, Defaults::Ignore][usize::from(mode / 9 % 3)],
        presence: mode & 0x80 != 0,
    };
    let read = from_slice::<types::Widget>(json, &options);
    for issue in &read.issues {
        let _ = issue.to_string();
    }
    if std::str::from_utf8(json).is_err() {
        // Text that is not UTF-8 is refused whole, as the dynamic validator's parse refuses it
        // (plain serde refuses it only in a string it reads, not in one it skips).
        assert!(read.value.is_none() && read.issues.len() == 1, "not UTF-8, yet read: {:?}", read.issues);
        return;
    }
    if options == Options::default() {
        let plain = serde_json::from_slice::<types::Widget>(json).ok().map(|w| w.validate());
        if plain.as_ref().is_some_and(Vec::is_empty) {
            assert!(read.issues.is_empty(), "plain serde reads it cleanly, the validating read says {:?}", read.issues);
        }
        if read.issues.is_empty() {
            let value = read.value.as_ref().expect("a clean read has a value");
            let text = serde_json::to_vec(value).expect("serializes");
            let again = serde_json::from_slice::<types::Widget>(&text).map(|w| w.validate());
            assert!(again.as_ref().is_ok_and(Vec::is_empty), "a clean read's value reads back as {again:?}");
        }
    }
});
