//! JSON pointer tokens (RFC 6901), escaped and read back in one place for every crate: the
//! runtime's paths and YAML positions, codegen's places and the derive's rule places.

use std::borrow::Cow;

/// `token` as one token of a JSON pointer: `~` written `~0`, `/` written `~1`.
pub fn escape_token(token: &str) -> Cow<'_, str> {
    match token.contains(['~', '/']) {
        true => token.replace('~', "~0").replace('/', "~1").into(),
        false => token.into(),
    }
}

/// One token of a JSON pointer read back: `~1` is `/`, then `~0` is `~` (so `~01` is `~1`).
pub fn unescape_token(token: &str) -> Cow<'_, str> {
    match token.contains('~') {
        true => token.replace("~1", "/").replace("~0", "~").into(),
        false => token.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_read_back_in_the_rfcs_order() {
        for token in ["", "a", "a/b", "~", "~1", "a~0/b", "/~/"] {
            assert_eq!(unescape_token(&escape_token(token)), token);
        }
        assert_eq!(escape_token("a/b~c"), "a~1b~0c");
        assert_eq!(unescape_token("~01"), "~1", "RFC 6901: ~1 first, then ~0");
    }
}
