//! The validating read on any bytes: no panic, no stack overflow, no super-linear time; and
//! it agrees with plain deserialization + validation on whether a document is clean.
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
    if options == Options::default() {
        // Clean for the validating read exactly when plain serde reads it and it validates.
        let plain = serde_json::from_slice::<types::Widget>(json).ok().map(|w| w.validate());
        let plain_clean = plain.as_ref().is_some_and(Vec::is_empty);
        assert_eq!(read.issues.is_empty(), plain_clean, "validating read {:?}, plain {:?}", read.issues, plain);
    }
});
