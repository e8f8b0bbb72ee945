//! Go's `regexp/syntax.Parse` with the flags `regexp.Compile` uses (Perl), for its errors
//! only: whether Go accepts a pattern, and if not, its error exactly
//! (`error parsing regexp: missing closing ]: `[a-``). The apiserver prints it for a bad
//! `pattern` and for a bad regex in a CEL rule, and a pattern Go refuses is refused here even
//! where Rust's `regex` would take it (`x**`, `\8`, `\p{Old_Italic}`).
//!
//! A port of the parser's scanning and error paths, in its order; the tree it builds is not
//! kept, only what an error depends on: whether the top of its stack is an operand (for a
//! repetition), how many groups are open, and the text of the last repetition.

/// A parse error in Go's words, or `None` when Go compiles `pattern`.
pub fn parse_error(pattern: &str) -> Option<String> {
    let parser = Parser {
        whole: pattern,
        colon_bracket: Finder::new(":]"),
        brace: Finder::new("}"),
        angle: Finder::new(">"),
        ..Parser::default()
    };
    parser.parse(pattern).err().map(|e| format!("error parsing regexp: {}: `{}`", e.code, e.expr))
}

struct Error {
    code: &'static str,
    expr: String,
}

fn err<T>(code: &'static str, expr: &str) -> Result<T, Error> {
    Err(Error { code, expr: expr.to_owned() })
}

const INVALID_CHAR_RANGE: &str = "invalid character class range";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_PAREN: &str = "missing closing )";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const UNEXPECTED_PAREN: &str = "unexpected )";

/// What is on top of Go's parse stack.
#[derive(Clone, Copy, PartialEq, Default)]
enum Top {
    /// Nothing: a repetition has no argument.
    #[default]
    Empty,
    /// `(` or `|`, which a repetition cannot apply to either.
    Pseudo,
    /// Something to repeat.
    Operand,
}

#[derive(Default)]
struct Parser<'a> {
    whole: &'a str,
    top: Top,
    open_groups: usize,
    /// The searches Go repeats from every `[:`, `\p{` and `(?<` (each to the end of the
    /// pattern, so quadratic in Go): answered from the last search while it still holds, so
    /// that the whole check stays linear.
    colon_bracket: Finder,
    brace: Finder,
    angle: Finder,
}

/// The first place of `needle` at or after a position, remembered: positions only grow
/// during a parse, and the answer for a later start is the same while it is not behind it.
struct Finder {
    needle: &'static str,
    from: usize,
    found: Option<Option<usize>>,
}

impl Finder {
    fn new(needle: &'static str) -> Finder {
        Finder { needle, from: 0, found: None }
    }

    /// Where `needle` first stands in `at` (a suffix of `whole`), relative to `at`.
    fn find(&mut self, whole: &str, at: &str) -> Option<usize> {
        let start = whole.len() - at.len();
        let known = match self.found {
            Some(Some(p)) if start >= self.from && p >= start => Some(Some(p)),
            Some(None) if start >= self.from => Some(None),
            _ => None,
        };
        let found = known.unwrap_or_else(|| {
            self.from = start;
            at.find(self.needle).map(|i| i + start)
        });
        self.found = Some(found);
        found.map(|p| p - start)
    }
}

impl Default for Finder {
    fn default() -> Finder {
        Finder::new("")
    }
}

/// The text consumed from `before` up to `after` (Go's `before[:len(before)-len(after)]`).
fn consumed<'a>(before: &'a str, after: &str) -> &'a str {
    &before[..before.len() - after.len()]
}

/// The first character of `s` and the rest (an empty `s` gives U+FFFD and itself, as Go's
/// `nextRune` does).
fn next_rune(s: &str) -> (char, &str) {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => (c, chars.as_str()),
        None => ('\u{FFFD}', s),
    }
}

impl<'a> Parser<'a> {
    fn parse(mut self, s: &'a str) -> Result<(), Error> {
        let mut t = s;
        let mut last_repeat = "";
        while !t.is_empty() {
            let mut repeat = "";
            match t.as_bytes()[0] {
                b'(' if t.as_bytes().get(1) == Some(&b'?') => t = self.perl_flags(t)?,
                b'(' => {
                    self.open_groups += 1;
                    self.top = Top::Pseudo;
                    t = &t[1..];
                }
                b'|' => {
                    self.top = Top::Pseudo;
                    t = &t[1..];
                }
                b')' => {
                    if self.open_groups == 0 {
                        return err(UNEXPECTED_PAREN, s);
                    }
                    self.open_groups -= 1;
                    self.top = Top::Operand;
                    t = &t[1..];
                }
                b'^' | b'$' | b'.' => {
                    self.top = Top::Operand;
                    t = &t[1..];
                }
                b'[' => {
                    t = self.class(t)?;
                    self.top = Top::Operand;
                }
                b'*' | b'+' | b'?' => {
                    let before = t;
                    t = self.repeat(before, &t[1..], last_repeat)?;
                    repeat = before;
                }
                b'{' => match parse_repeat(t) {
                    None => {
                        self.top = Top::Operand; // a `{` that is no repetition is a literal
                        t = &t[1..];
                    }
                    Some((min, max, after)) => {
                        if !(0..=1000).contains(&min) || max > 1000 || max >= 0 && min > max {
                            return err(INVALID_REPEAT_SIZE, consumed(t, after));
                        }
                        let before = t;
                        t = self.repeat(before, after, last_repeat)?;
                        repeat = before;
                    }
                },
                b'\\' => {
                    t = self.escape_outside_class(t)?;
                    self.top = Top::Operand;
                }
                _ => {
                    t = next_rune(t).1;
                    self.top = Top::Operand;
                }
            }
            last_repeat = repeat;
        }
        if self.open_groups > 0 {
            return err(MISSING_PAREN, s);
        }
        Ok(())
    }

    /// A repetition operator: `before` starts at it, `after` follows it.
    fn repeat(&self, before: &str, after: &'a str, last_repeat: &str) -> Result<&'a str, Error> {
        let after = after.strip_prefix('?').unwrap_or(after); // non-greedy
        if !last_repeat.is_empty() {
            return err(INVALID_REPEAT_OP, &last_repeat[..last_repeat.len() - after.len()]);
        }
        if self.top != Top::Operand {
            return err(MISSING_REPEAT_ARGUMENT, consumed(before, after));
        }
        Ok(after)
    }

    /// `(?P<name>`, `(?<name>`, `(?flags)`, `(?flags:`.
    fn perl_flags(&mut self, s: &'a str) -> Result<&'a str, Error> {
        let b = s.as_bytes();
        let starts_with_p = b.len() > 4 && b[2] == b'P' && b[3] == b'<';
        let starts_with_name = b.len() > 3 && b[2] == b'<';
        if starts_with_p || starts_with_name {
            let start = if starts_with_name { 3 } else { 4 };
            let Some(end) = self.angle.find(self.whole, s) else { return err(INVALID_NAMED_CAPTURE, s) };
            let name = &s[start..end];
            if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
                return err(INVALID_NAMED_CAPTURE, &s[..=end]);
            }
            self.open_groups += 1;
            self.top = Top::Pseudo;
            return Ok(&s[end + 1..]);
        }
        let mut t = &s[2..];
        let mut negated = false;
        let mut saw_flag = false;
        while !t.is_empty() {
            let (c, rest) = next_rune(t);
            t = rest;
            match c {
                'i' | 'm' | 's' | 'U' => saw_flag = true,
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' if !negated || saw_flag => {
                    if c == ':' {
                        self.open_groups += 1;
                        self.top = Top::Pseudo;
                    }
                    return Ok(t);
                }
                _ => break,
            }
        }
        err(INVALID_PERL_OP, consumed(s, t))
    }
}

/// `{min}`, `{min,}` or `{min,max}` at the start of `s`: `(min, max, rest)` (`max` -1 when
/// open, either -1 when too large), or `None` when it is no repetition.
fn parse_repeat(s: &str) -> Option<(i64, i64, &str)> {
    let s = s.strip_prefix('{')?;
    let (min, s) = parse_int(s)?;
    let (mut min, mut max) = (min, min);
    let s = match s.strip_prefix(',') {
        None => s,
        Some("") => return None,
        Some(rest) if rest.starts_with('}') => {
            max = -1;
            rest
        }
        Some(rest) => {
            let (m, rest) = parse_int(rest)?;
            max = m;
            if max < 0 {
                min = -1;
            }
            rest
        }
    };
    let rest = s.strip_prefix('}')?;
    Some((min, max, rest))
}

/// Decimal digits without a leading zero; -1 for a number of more than eight digits' worth.
fn parse_int(s: &str) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if b.first().is_none_or(|c| !c.is_ascii_digit()) || b.len() >= 2 && b[0] == b'0' && b[1].is_ascii_digit() {
        return None;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n: i64 = 0;
    for &d in &b[..digits] {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + i64::from(d - b'0');
    }
    Some((n, &s[digits..]))
}

impl<'a> Parser<'a> {
    /// A backslash outside a class: `\A`, `\b`, `\B`, `\z`, `\Q...\E`, a Unicode class, a Perl
    /// class, or a single escaped character.
    fn escape_outside_class(&mut self, t: &'a str) -> Result<&'a str, Error> {
        if let Some(&c) = t.as_bytes().get(1) {
            match c {
                b'A' | b'b' | b'B' | b'z' => return Ok(&t[2..]),
                b'C' => return err(INVALID_ESCAPE, &t[..2]),
                b'Q' => return Ok(t[2..].split_once("\\E").map_or("", |(_, rest)| rest)),
                _ => {}
            }
        }
        if let Some(rest) = self.unicode_class(t)? {
            return Ok(rest);
        }
        if let Some(rest) = perl_class(t) {
            return Ok(rest);
        }
        escape(t).map(|(_, rest)| rest)
    }

    /// `\pN`, `\p{Name}`, `\PN`, `\P{^Name}`: `None` when `s` starts with none of them.
    fn unicode_class(&mut self, s: &'a str) -> Result<Option<&'a str>, Error> {
        let b = s.as_bytes();
        if b.len() < 2 || b[0] != b'\\' || b[1] != b'p' && b[1] != b'P' {
            return Ok(None);
        }
        let (c, t) = next_rune(&s[2..]);
        let (seq, name, rest) = if c != '{' {
            let seq = consumed(s, t);
            (seq, &seq[2..], t)
        } else {
            let Some(end) = self.brace.find(self.whole, s) else { return err(INVALID_CHAR_RANGE, s) };
            (&s[..=end], &s[3..end], &s[end + 1..])
        };
        let name = name.strip_prefix('^').unwrap_or(name);
        if !unicode_table_exists(name) {
            return err(INVALID_CHAR_RANGE, seq);
        }
        Ok(Some(rest))
    }

    /// A character class at the start of `s` (`[...]`); the rest after its `]`.
    fn class(&mut self, s: &'a str) -> Result<&'a str, Error> {
        let mut t = &s[1..];
        if let Some(rest) = t.strip_prefix('^') {
            t = rest;
        }
        let mut first = true;
        while t.is_empty() || !t.starts_with(']') || first {
            first = false;
            if t.len() > 2
                && t.starts_with("[:")
                && let Some(i) = self.colon_bracket.find(self.whole, &t[2..])
            {
                let name = &t[..i + 4];
                if !POSIX_CLASSES.contains(&name) {
                    return err(INVALID_CHAR_RANGE, name);
                }
                t = &t[i + 4..];
                continue;
            }
            if let Some(rest) = self.unicode_class(t)? {
                t = rest;
                continue;
            }
            if let Some(rest) = perl_class(t) {
                t = rest;
                continue;
            }
            let range = t;
            let (lo, rest) = class_char(t, s)?;
            t = rest;
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (hi, rest) = class_char(&t[1..], s)?;
                t = rest;
                if hi < lo {
                    return err(INVALID_CHAR_RANGE, consumed(range, t));
                }
            }
        }
        Ok(&t[1..])
    }
}

/// `\d`, `\D`, `\s`, `\S`, `\w`, `\W`.
fn perl_class(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    (b.len() >= 2 && b[0] == b'\\' && matches!(b[1], b'd' | b'D' | b's' | b'S' | b'w' | b'W')).then(|| &s[2..])
}

/// Go's `canonicalName`: first letter upper, the rest lower, no `_`, `-` or space.
fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars().filter(|c| !matches!(c, '_' | '-' | ' ')) {
        if out.is_empty() { out.push(c.to_ascii_uppercase()) } else { out.push(c.to_ascii_lowercase()) }
    }
    out
}

/// Whether `unicodeTable` finds `name`.
fn unicode_table_exists(name: &str) -> bool {
    let name = canonical_name(name);
    matches!(name.as_str(), "Any" | "Assigned" | "Ascii" | "Lc")
        || CATEGORIES.contains(&name.as_str())
        || SCRIPTS.contains(&name.as_str())
        || CATEGORY_ALIASES.contains(&name.as_str())
}

/// One character of a class: escaped or plain.
fn class_char<'a>(s: &'a str, whole_class: &str) -> Result<(char, &'a str), Error> {
    if s.is_empty() {
        return err(MISSING_BRACKET, whole_class);
    }
    if s.starts_with('\\') {
        return escape(s);
    }
    Ok(next_rune(s))
}

/// A single escaped character: what it stands for, and the rest.
fn escape(s: &str) -> Result<(char, &str), Error> {
    let t = &s[1..];
    if t.is_empty() {
        return err(TRAILING_BACKSLASH, "");
    }
    let (c, mut t) = next_rune(t);
    let invalid = |t: &str| err(INVALID_ESCAPE, consumed(s, t));
    match c {
        '1'..='7' if !t.as_bytes().first().is_some_and(|d| (b'0'..=b'7').contains(d)) => invalid(t),
        '0'..='7' => {
            let mut r = c as u32 - '0' as u32;
            for _ in 1..3 {
                match t.as_bytes().first() {
                    Some(d @ b'0'..=b'7') => {
                        r = r * 8 + u32::from(d - b'0');
                        t = &t[1..];
                    }
                    _ => break,
                }
            }
            Ok((char::from_u32(r).unwrap_or('\u{FFFD}'), t))
        }
        'x' => {
            if t.is_empty() {
                return invalid(t);
            }
            let (c, rest) = next_rune(t);
            t = rest;
            if c == '{' {
                let mut value: u32 = 0;
                let mut digits = 0;
                loop {
                    if t.is_empty() {
                        return invalid(t);
                    }
                    let (c, rest) = next_rune(t);
                    t = rest;
                    if c == '}' {
                        break;
                    }
                    let Some(v) = c.to_digit(16) else { return invalid(t) };
                    value = value * 16 + v;
                    if value > 0x10FFFF {
                        return invalid(t);
                    }
                    digits += 1;
                }
                if digits == 0 {
                    return invalid(t);
                }
                return Ok((char::from_u32(value).unwrap_or('\u{FFFD}'), t));
            }
            let x = c.to_digit(16);
            let (c, rest) = next_rune(t);
            t = rest;
            match (x, c.to_digit(16)) {
                (Some(x), Some(y)) => Ok((char::from_u32(x * 16 + y).unwrap_or('\u{FFFD}'), t)),
                _ => invalid(t),
            }
        }
        'a' => Ok(('\u{7}', t)),
        'f' => Ok(('\u{c}', t)),
        'n' => Ok(('\n', t)),
        'r' => Ok(('\r', t)),
        't' => Ok(('\t', t)),
        'v' => Ok(('\u{b}', t)),
        // Escaped punctuation is itself; an escaped letter or digit Go does not know is an
        // error, and so is any escaped non-ASCII character.
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, t)),
        _ => invalid(t),
    }
}

/// The POSIX classes Go knows inside brackets.
const POSIX_CLASSES: &[&str] = &[
    "[:alnum:]",
    "[:^alnum:]",
    "[:alpha:]",
    "[:^alpha:]",
    "[:ascii:]",
    "[:^ascii:]",
    "[:blank:]",
    "[:^blank:]",
    "[:cntrl:]",
    "[:^cntrl:]",
    "[:digit:]",
    "[:^digit:]",
    "[:graph:]",
    "[:^graph:]",
    "[:lower:]",
    "[:^lower:]",
    "[:print:]",
    "[:^print:]",
    "[:punct:]",
    "[:^punct:]",
    "[:space:]",
    "[:^space:]",
    "[:upper:]",
    "[:^upper:]",
    "[:word:]",
    "[:^word:]",
    "[:xdigit:]",
    "[:^xdigit:]",
];

/// `unicode.Categories`' keys (Go 1.26).
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "LC", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl",
    "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs",
];

/// `unicode.Scripts`' keys (Go 1.26): looked up by the canonical name, so the ones with an
/// underscore are never found (`\\p{Old_Italic}` is refused by Go too).
const SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// `unicode.CategoryAliases`' keys (Go 1.26), canonicalized as the parser canonicalizes them.
const CATEGORY_ALIASES: &[&str] = &[
    "Casedletter",
    "Closepunctuation",
    "Cntrl",
    "Combiningmark",
    "Connectorpunctuation",
    "Control",
    "Currencysymbol",
    "Dashpunctuation",
    "Decimalnumber",
    "Digit",
    "Enclosingmark",
    "Finalpunctuation",
    "Format",
    "Initialpunctuation",
    "Letter",
    "Letternumber",
    "Lineseparator",
    "Lowercaseletter",
    "Mark",
    "Mathsymbol",
    "Modifierletter",
    "Modifiersymbol",
    "Nonspacingmark",
    "Number",
    "Openpunctuation",
    "Other",
    "Otherletter",
    "Othernumber",
    "Otherpunctuation",
    "Othersymbol",
    "Paragraphseparator",
    "Privateuse",
    "Punct",
    "Punctuation",
    "Separator",
    "Spaceseparator",
    "Spacingmark",
    "Surrogate",
    "Symbol",
    "Titlecaseletter",
    "Unassigned",
    "Uppercaseletter",
];

#[cfg(test)]
mod tests {
    use super::parse_error;

    /// Each answer recorded from kube-apiserver 1.36.3 (Go 1.26's `regexp.Compile`, through
    /// the `pattern` check): `None` where it accepted the pattern.
    #[test]
    fn go_refuses_what_it_refuses_in_its_words() {
        let cases: &[(&str, Option<&str>)] = &[
            ("[a-", Some("error parsing regexp: missing closing ]: `[a-`")),
            ("x**", Some("error parsing regexp: invalid nested repetition operator: `**`")),
            ("a{2,1}", Some("error parsing regexp: invalid repeat count: `{2,1}`")),
            ("\\p{Foo}", Some("error parsing regexp: invalid character class range: `\\p{Foo}`")),
            ("\\8", Some("error parsing regexp: invalid escape sequence: `\\8`")),
            ("(ab", Some("error parsing regexp: missing closing ): `(ab`")),
            ("ab)", Some("error parsing regexp: unexpected ): `ab)`")),
            ("*a", Some("error parsing regexp: missing argument to repetition operator: `*`")),
            ("a|+", Some("error parsing regexp: missing argument to repetition operator: `+`")),
            ("(?x)a", Some("error parsing regexp: invalid or unsupported Perl syntax: `(?x`")),
            ("(?P<>a)", Some("error parsing regexp: invalid named capture: `(?P<>`")),
            ("[z-a]", Some("error parsing regexp: invalid character class range: `z-a`")),
            ("[[:foo:]]", Some("error parsing regexp: invalid character class range: `[:foo:]`")),
            ("a\\", Some("error parsing regexp: trailing backslash at end of expression: ``")),
            ("a{1001}", Some("error parsing regexp: invalid repeat count: `{1001}`")),
            ("\\C", Some("error parsing regexp: invalid escape sequence: `\\C`")),
            ("(?<name>x)", None),
            ("(?i)ok", None),
            ("^*", None),
            ("a{,1}", None),
            ("[]a]", None),
            ("\\pL", None),
            ("\\p{Greek}", None),
            ("[\\d-z]", None),
            ("\\Qa*\\E+", None),
            ("x{2}?", None),
            ("\\p{Old_Italic}", Some("error parsing regexp: invalid character class range: `\\p{Old_Italic}`")),
            ("\\p{Lu}", None),
            ("\\p{greek}", None),
            ("(?i-)x", Some("error parsing regexp: invalid or unsupported Perl syntax: `(?i-)`")),
            ("(?-)x", Some("error parsing regexp: invalid or unsupported Perl syntax: `(?-)`")),
            ("(?<n", Some("error parsing regexp: invalid named capture: `(?<n`")),
            ("\\x{zz}", Some("error parsing regexp: invalid escape sequence: `\\x{z`")),
            ("\\x1", Some("error parsing regexp: invalid escape sequence: `\\x1`")),
            ("[\\p{Foo}]", Some("error parsing regexp: invalid character class range: `\\p{Foo}`")),
            ("a**?", Some("error parsing regexp: invalid nested repetition operator: `**?`")),
            ("(?:a)*", None),
            ("(a)|*", Some("error parsing regexp: missing argument to repetition operator: `*`")),
            ("\\1", Some("error parsing regexp: invalid escape sequence: `\\1`")),
            ("\\10", None),
            ("x{2}{3}", Some("error parsing regexp: invalid nested repetition operator: `{2}{3}`")),
            ("a+?+", Some("error parsing regexp: invalid nested repetition operator: `+?+`")),
        ];
        for (pattern, want) in cases {
            assert_eq!(parse_error(pattern).as_deref(), *want, "{pattern}");
        }
    }
}
