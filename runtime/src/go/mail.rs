//! Go's `net/mail.ParseAddress` (what the `email` format asks): one address, as `local@domain`
//! or `Display Name <local@domain>`, with quoted local parts, domain literals, comments and
//! one-address groups (`team: a@b;`), UTF-8 allowed where RFC 6532 allows it.
//! Not ported: decoding RFC 2047 encoded words in display names (they read as atoms, which
//! only matters for an encoded word naming an unknown charset, an error in Go).

/// Whether `net/mail.ParseAddress(s)` succeeds with a non-empty address.
pub fn is_address(s: &str) -> bool {
    let mut p = Parser { s };
    p.single_address().is_some()
}

struct Parser<'a> {
    s: &'a str,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().first().copied()
    }

    fn consume(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.s = &self.s[1..];
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }

    /// `skipCFWS`: spaces and parenthesized comments; false on an unclosed comment.
    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume(b'(') {
            if !self.comment() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    /// `consumeComment` after its `(`: nested parentheses, `\` quoting one byte.
    fn comment(&mut self) -> bool {
        let mut depth = 1;
        let b = self.s.as_bytes();
        let mut i = 0;
        while i < b.len() && depth > 0 {
            if b[i] == b'\\' && b.len() - i > 1 {
                i += 1;
            } else if b[i] == b'(' {
                depth += 1;
            } else if b[i] == b')' {
                depth -= 1;
            }
            i += 1;
        }
        // Byte-wise as Go; a cut inside a character can only leave an unclosed comment.
        self.s = self.s.get(i..).unwrap_or("");
        depth == 0
    }

    /// `parseSingleAddress`.
    fn single_address(&mut self) -> Option<()> {
        let count = self.address(true)?;
        if !self.skip_cfws() || !self.s.is_empty() || count != 1 {
            return None;
        }
        Some(())
    }

    /// `parseAddress`: how many addresses it read (a group may hold zero or several).
    fn address(&mut self, handle_group: bool) -> Option<usize> {
        self.skip_space();
        if self.s.is_empty() {
            return None;
        }
        // An addr-spec is tried first; on failure the input is read again as name-addr.
        let start = self.s;
        if self.addr_spec().is_some() {
            self.skip_space();
            if self.peek() == Some(b'(') {
                self.s = &self.s[1..];
                if !self.comment() {
                    return None;
                }
            }
            return Some(1);
        }
        self.s = start;
        if self.peek() != Some(b'<') {
            self.phrase()?;
        }
        self.skip_space();
        if handle_group && self.consume(b':') {
            return self.group_list();
        }
        if !self.consume(b'<') {
            return None;
        }
        self.addr_spec()?;
        self.consume(b'>').then_some(1)
    }

    /// `consumeGroupList` after the `:`.
    fn group_list(&mut self) -> Option<usize> {
        let mut count = 0;
        self.skip_space();
        if self.consume(b';') {
            return self.skip_cfws().then_some(0);
        }
        loop {
            self.skip_space();
            count += self.address(false)?;
            if !self.skip_cfws() {
                return None;
            }
            if self.consume(b';') {
                return self.skip_cfws().then_some(count);
            }
            if !self.consume(b',') {
                return None;
            }
        }
    }

    /// `consumeAddrSpec`: a dot-atom or quoted local part, `@`, a dot-atom or a domain literal.
    /// Restores the input on failure.
    fn addr_spec(&mut self) -> Option<()> {
        let start = self.s;
        let ok = self.addr_spec_inner();
        if ok.is_none() {
            self.s = start;
        }
        ok
    }

    fn addr_spec_inner(&mut self) -> Option<()> {
        self.skip_space();
        if self.peek() == Some(b'"') {
            if self.quoted_string()?.is_empty() {
                return None;
            }
        } else {
            self.atom(true, false)?;
        }
        if !self.consume(b'@') {
            return None;
        }
        self.skip_space();
        match self.peek() {
            None => None,
            Some(b'[') => self.domain_literal(),
            Some(_) => self.atom(true, false).map(drop),
        }
    }

    /// `consumePhrase`: one or more words (atoms, read permissively as dot-atoms, or quoted
    /// strings); any error after the first word ends the phrase.
    fn phrase(&mut self) -> Option<()> {
        let mut words = 0;
        loop {
            if words > 0 && !self.skip_cfws() {
                return None;
            }
            self.skip_space();
            if self.s.is_empty() {
                break;
            }
            let word = if self.peek() == Some(b'"') { self.quoted_string().map(drop) } else { self.atom(true, true) };
            if word.is_none() {
                break;
            }
            words += 1;
        }
        (words > 0).then_some(())
    }

    /// `consumeQuotedString` at a `"`: the unquoted text.
    fn quoted_string(&mut self) -> Option<String> {
        let mut out = String::new();
        let mut escaped = false;
        let mut chars = self.s.char_indices().skip(1);
        loop {
            let (i, c) = chars.next()?;
            if escaped {
                if !is_vchar(c) && !is_wsp(c) {
                    return None;
                }
                out.push(c);
                escaped = false;
            } else if is_qtext(c) || is_wsp(c) {
                out.push(c);
            } else if c == '"' {
                self.s = &self.s[i + 1..];
                return Some(out);
            } else if c == '\\' {
                escaped = true;
            } else {
                return None;
            }
        }
    }

    /// `consumeAtom`: atext characters (and `.` when `dot`); unless `permissive`, no leading,
    /// trailing or doubled dot.
    fn atom(&mut self, dot: bool, permissive: bool) -> Option<()> {
        let len = self.s.find(|c| !is_atext(c, dot)).unwrap_or(self.s.len());
        if len == 0 {
            return None;
        }
        let atom = &self.s[..len];
        if !permissive && (atom.starts_with('.') || atom.ends_with('.') || atom.contains("..")) {
            return None;
        }
        self.s = &self.s[len..];
        Some(())
    }

    /// `consumeDomainLiteral`: `[` dtext `]`, and the text must be an IP address.
    fn domain_literal(&mut self) -> Option<()> {
        self.consume(b'[');
        let len = self.s.find(']')?;
        let text = &self.s[..len];
        if !text.chars().all(is_dtext) || super::net::parse_ip(text).is_none() {
            return None;
        }
        self.s = &self.s[len + 1..];
        Some(())
    }
}

fn is_vchar(c: char) -> bool {
    ('!'..='~').contains(&c) || !c.is_ascii()
}

fn is_wsp(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn is_qtext(c: char) -> bool {
    c != '\\' && c != '"' && is_vchar(c)
}

fn is_dtext(c: char) -> bool {
    c != '[' && c != ']' && c != '\\' && is_vchar(c)
}

fn is_atext(c: char, dot: bool) -> bool {
    match c {
        '.' => dot,
        '(' | ')' | '<' | '>' | '[' | ']' | ':' | ';' | '@' | '\\' | ',' | '"' => false,
        _ => is_vchar(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cases of Go's `net/mail` `TestAddressParsing` / `TestAddressParsingError` (kube-openapi's
    /// `TestFormatEmail` table runs through the format, in `format.rs`).
    #[test]
    fn addresses_as_go_parses_them() {
        for good in [
            "somebody@somewhere.com",
            "Bob <bob@example.com>",
            "<bob@example.com>",
            r#""Joe Q. Public" <john.q.public@example.com>"#,
            "John Doe <jdoe@machine.example>",
            "jdoe@machine.example (John Doe)",
            "Mary Smith <mary@x.test>",
            "jdoe@[192.168.0.1]",
            "jdoe@[::1]",
            "Group: jdoe@example.com;",
            "  a@b.c  ",
            "a@b.c (comment)",
        ] {
            assert!(is_address(good), "{good:?} should be an address");
        }
        for bad in [
            "somebody@somewhere@com",
            "",
            "plain",
            "a@",
            "@b.c",
            "a@b..c",
            ".a@b.c",
            "a.@b.c",
            r#"""@example.com"#,
            "Bob <bob@example.com",
            "a@b.c, d@e.f",
            "Group: ;",
            "Group: a@b.c, d@e.f;",
            "jdoe@[300.0.0.1]",
            "a@b.c (unclosed",
            "a b@c.d",
            "\"unclosed@x.y",
        ] {
            assert!(!is_address(bad), "{bad:?} should not be an address");
        }
    }
}
