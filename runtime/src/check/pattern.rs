//! Go RE2 `pattern`s (what the apiserver compiles with `regexp.Compile`) as Rust `regex`
//! patterns with the same meaning.
//!
//! Both engines match unanchored, leftmost-first, and agree on most syntax. The differences
//! translated here:
//! - `\d \w \s \b` (and their negations) are ASCII in Go: `\d` does not match `٣`, `\s` is
//!   `[\t\n\f\r ]` (no `\v`);
//! - `\Q...\E` quotes a literal; `\123` is an octal escape;
//! - inside brackets, `[`, `&&`, `--` and `~~` are literal in Go (Rust reads nesting and set
//!   operations);
//! - `\<` and `\>` are escaped literals in Go (word boundaries in Rust).
//!
//! And what Go refuses is refused: the `x` flag, repeat counts above 1000.
//!
//! ```
//! let rust = kubeskema::pattern::translate(r"^\d+$").unwrap();
//! let re = regex::Regex::new(&rust).unwrap();
//! assert!(re.is_match("42") && !re.is_match("٤٢"));
//! ```

use std::fmt::Write as _;

/// Why a Go pattern is not valid: the text follows Go's `error parsing regexp: ...` where we
/// know its words, and the Rust parser's otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError(pub String);

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatternError {}

const DIGIT: &str = "0-9";
const WORD: &str = "0-9A-Za-z_";
const SPACE: &str = r"\t\n\f\r ";

/// Translates a Go RE2 pattern into Rust `regex` syntax with the same matches. A pattern Go
/// refuses is refused first, in Go's words ([`crate::go::regexp`]); what is left is valid Go.
pub fn translate(go: &str) -> Result<String, PatternError> {
    if let Some(e) = crate::go::regexp::parse_error(go) {
        return Err(PatternError(e));
    }
    let chars: Vec<char> = go.chars().collect();
    let mut out = String::with_capacity(go.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    // Position right after `[` or `[^` (where `]` is a literal in both engines).
    let mut class_start = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                // Go refused a trailing backslash above.
                let Some(&next) = chars.get(i + 1) else { break };
                i += 2;
                match next {
                    'd' | 'D' | 'w' | 'W' | 's' | 'S' => {
                        let set = match next.to_ascii_lowercase() {
                            'd' => DIGIT,
                            'w' => WORD,
                            _ => SPACE,
                        };
                        let neg = if next.is_ascii_uppercase() { "^" } else { "" };
                        // A nested class works both inside brackets (as a union) and outside.
                        write!(out, "[{neg}{set}]").unwrap();
                    }
                    'b' | 'B' if !in_class => write!(out, r"(?-u:\{next})").unwrap(),
                    'Q' => {
                        let mut literal = String::new();
                        while i < chars.len() && !(chars[i] == '\\' && chars.get(i + 1) == Some(&'E')) {
                            literal.push(chars[i]);
                            i += 1;
                        }
                        i = (i + 2).min(chars.len().max(i));
                        out.push_str(&regex_escape(&literal, in_class));
                    }
                    '0'..='7' => {
                        // Go: `\0`..`\7` followed by up to two more octal digits.
                        let mut value = next.to_digit(8).unwrap_or(0);
                        let mut n = 1;
                        while n < 3 && i < chars.len() && chars[i].is_digit(8) {
                            value = value * 8 + chars[i].to_digit(8).unwrap_or(0);
                            i += 1;
                            n += 1;
                        }
                        write!(out, r"\x{{{value:x}}}").unwrap();
                    }
                    '<' | '>' => out.push(next),
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                i += 1;
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                class_start = i;
                // A `]` first in the class is a literal in both engines.
                if chars.get(i) == Some(&']') {
                    out.push_str(r"\]");
                    i += 1;
                }
                // `[[:alpha:]]`-style classes are handled by the `[` arm below.
                continue;
            }
            '[' if in_class => {
                // `[:alpha:]` is a POSIX class in both; any other `[` is a literal in Go.
                // Class names are short (`xdigit`, maybe negated): the `:]` is looked for
                // nearby only, so a pattern of many `[:` stays linear.
                const LONGEST_CLASS: usize = "^xdigit".len();
                let window = i + 2..chars.len().saturating_sub(1).min(i + 3 + LONGEST_CLASS);
                if chars.get(i + 1) == Some(&':')
                    && let Some(end) = window.into_iter().find(|&j| chars[j] == ':' && chars[j + 1] == ']')
                {
                    out.extend(&chars[i..end + 2]);
                    i = end + 2;
                    continue;
                }
                out.push_str(r"\[");
            }
            ']' if in_class && i > class_start => {
                in_class = false;
                out.push(']');
            }
            '&' | '~' if in_class && chars.get(i + 1) == Some(&c) => {
                out.push('\\');
                out.push(c);
            }
            '-' if in_class && chars.get(i + 1) == Some(&'-') => {
                out.push_str(r"\-");
            }
            // Go reads a `{` that does not start a repetition (`a{`, `a{,5}`, `a{01}`) as
            // itself; Rust's regex refuses it.
            '{' if !in_class && !starts_go_repeat(&chars[i..]) => out.push_str(r"\{"),
            _ => out.push(c),
        }
        i += 1;
    }
    Ok(out)
}

/// Whether `s` (from a `{`) is a repetition as Go's `parseRepeat` reads one: `{n}`, `{n,}` or
/// `{n,m}`, the numbers decimal without a leading zero.
fn starts_go_repeat(s: &[char]) -> bool {
    let number = |at: usize| -> Option<usize> {
        let digits = s[at..].iter().take_while(|c| c.is_ascii_digit()).count();
        let leading_zero = digits >= 2 && s[at] == '0';
        (digits > 0 && !leading_zero).then_some(at + digits)
    };
    let Some(mut at) = number(1) else { return false };
    if s.get(at) == Some(&',') {
        at += 1;
        if s.get(at) != Some(&'}') {
            match number(at) {
                Some(end) => at = end,
                None => return false,
            }
        }
    }
    s.get(at) == Some(&'}')
}

fn regex_escape(literal: &str, in_class: bool) -> String {
    let mut out = String::new();
    for c in literal.chars() {
        let special = if in_class { "\\[]^-&~" } else { "\\.+*?()|[]{}^$#&-~" };
        if special.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A compiled `pattern` keyword: patterns CRDs copy from apimachinery and a few other
/// well-known places (over half the corpus's) matched by hand, runs of ASCII classes by a
/// table, any other by its regex.
#[derive(Clone, Debug)]
pub enum Matcher {
    /// A well-known pattern's hand-written matcher, held to the pattern's regex by tests.
    Known(fn(&str) -> bool),
    /// An anchored run of ASCII character classes (`^[a-z][-a-z0-9]*$`).
    Run(AsciiRun),
    /// Any other pattern, translated and compiled.
    Regex(regex::Regex),
}

impl Matcher {
    /// Compiles a Go pattern for matching only (no captures, no `find`).
    pub fn compile(go: &str) -> Result<Matcher, PatternError> {
        if let Some(shape) = crate::check::shapes::known_pattern(go) {
            return Ok(Matcher::Known(shape));
        }
        let rust = translate(go)?;
        match AsciiRun::of(&rust) {
            Some(run) => Ok(Matcher::Run(run)),
            None => regex_of(&rust).map(Matcher::Regex),
        }
    }

    /// Whether the pattern matches somewhere in `s`.
    #[inline]
    pub fn is_match(&self, s: &str) -> bool {
        match self {
            Matcher::Known(shape) => shape(s),
            Matcher::Run(run) => run.is_match(s),
            Matcher::Regex(re) => re.is_match(s),
        }
    }
}

/// A pattern that is a whole string of ASCII characters from classes: an optional first
/// character from one class, then at least `min_rest` from another (`^[a-zA-Z0-9][-a-zA-Z0-9]*$`,
/// `^[-a-zA-Z0-9_]+$`). Names are checked against such patterns in every list item of some
/// CRDs, and a regex search costs tens of nanoseconds where a table costs one per byte.
///
/// Recognised on the regex's syntax tree, so that the classes are the regex parser's (flags,
/// escapes and ranges included), never a second reading of the pattern's text.
#[derive(Clone, Debug)]
pub struct AsciiRun {
    first: Option<AsciiSet>,
    rest: AsciiSet,
    min_rest: u32,
}

/// A set of ASCII bytes.
#[derive(Clone, Copy, Debug)]
struct AsciiSet(u128);

impl AsciiSet {
    /// The set of a class, if all of it is ASCII.
    fn of(hir: &regex_syntax::hir::Hir) -> Option<AsciiSet> {
        let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) = hir.kind() else {
            return None;
        };
        let mut bits = 0u128;
        for range in class.ranges() {
            let (start, end) = (u32::from(range.start()), u32::from(range.end()));
            if end > 0x7f {
                return None;
            }
            for c in start..=end {
                bits |= 1 << c;
            }
        }
        Some(AsciiSet(bits))
    }

    #[inline]
    fn contains(self, byte: u8) -> bool {
        byte < 128 && self.0 & (1 << byte) != 0
    }
}

impl AsciiRun {
    /// The run a Rust pattern is, if it is one: `^`, an optional class, a class repeated at
    /// least n times without a bound, `$`.
    fn of(rust: &str) -> Option<AsciiRun> {
        use regex_syntax::hir::{HirKind, Look};
        let hir = regex_syntax::Parser::new().parse(rust).ok()?;
        let HirKind::Concat(parts) = hir.kind() else { return None };
        let (start, first, repeated, end) = match parts.as_slice() {
            [start, first, repeated, end] => (start, Some(AsciiSet::of(first)?), repeated, end),
            [start, repeated, end] => (start, None, repeated, end),
            _ => return None,
        };
        if start.kind() != &HirKind::Look(Look::Start) || end.kind() != &HirKind::Look(Look::End) {
            return None;
        }
        let HirKind::Repetition(rep) = repeated.kind() else { return None };
        if rep.max.is_some() {
            return None;
        }
        Some(AsciiRun { first, rest: AsciiSet::of(&rep.sub)?, min_rest: rep.min })
    }

    /// Whether all of `s` is the run.
    #[inline]
    pub fn is_match(&self, s: &str) -> bool {
        let mut bytes = s.as_bytes();
        if let Some(first) = self.first {
            match bytes.split_first() {
                Some((&c, rest)) if first.contains(c) => bytes = rest,
                _ => return false,
            }
        }
        bytes.len() >= self.min_rest as usize && bytes.iter().all(|&c| self.rest.contains(c))
    }
}

/// Translates and compiles a Go pattern.
pub fn compile(go: &str) -> Result<regex::Regex, PatternError> {
    regex_of(&translate(go)?)
}

fn regex_of(rust: &str) -> Result<regex::Regex, PatternError> {
    regex::Regex::new(rust).map_err(|e| PatternError(format!("error parsing regexp: {}", first_line(&e.to_string()))))
}

fn first_line(s: &str) -> String {
    // The regex crate renders a multi-line report; its last line says what is wrong.
    s.lines().rev().find(|l| l.trim_start().starts_with("error:")).map_or_else(
        || s.lines().next().unwrap_or_default().to_owned(),
        |l| l.trim_start().trim_start_matches("error:").trim().to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(go: &str, text: &str) -> bool {
        compile(go).unwrap_or_else(|e| panic!("{go}: {e}")).is_match(text)
    }

    /// A `{` that starts no repetition is itself in Go (`a{`, `a{,5}`, `a{01}`); one that does
    /// repeats, as before.
    #[test]
    fn braces_that_start_no_repetition_are_literals_as_in_go() {
        assert!(matches("^a{$", "a{"));
        assert!(matches("^a{,5}$", "a{,5}"));
        assert!(matches("^a{01}$", "a{01}"));
        assert!(matches("^x{}$", "x{}"));
        assert!(matches("^a{2}$", "aa") && !matches("^a{2}$", "a{2}"));
        assert!(matches("^a{1,}$", "aaa") && matches("^a{1,2}$", "aa"));
        assert!(matches("^[{]$", "{"));
    }

    #[test]
    fn perl_classes_are_ascii_as_in_go() {
        assert!(!matches(r"^\d+$", "٣"), "Arabic-Indic digits are not \\d in Go");
        assert!(matches(r"^\d+$", "0129"));
        assert!(!matches(r"^\w+$", "héllo"));
        assert!(matches(r"^\W$", "é"));
        assert!(!matches(r"^\s$", "\u{b}"), "Go's \\s has no vertical tab");
        assert!(matches(r"^\s$", "\t"));
        assert!(matches(r"\bfoo\b", "éfoo"), "\\b is an ASCII word boundary");
        assert!(matches(r"^[\d\-]+$", "1-2"));
        assert!(!matches(r"^[^\d]$", "5"));
    }

    #[test]
    fn go_only_syntax_is_translated() {
        assert!(matches(r"^[a&&b]$", "&"));
        assert!(matches(r"^[[]$", "["));
        assert!(matches(r"\<", "<"));
        assert!(matches(r"^\Qa.b\E$", "a.b"));
        assert!(!matches(r"^\Qa.b\E$", "axb"));
        assert!(matches(r"^\101$", "A"));
        assert!(matches(r"^[]a]+$", "]a"));
        assert!(matches(r"^[[:alpha:]]+$", "abc"));
        assert!(matches(r"(?i)^k$", "K"));
    }

    #[test]
    fn what_go_refuses_is_refused() {
        assert_eq!(translate("a{1001}").unwrap_err().0, "error parsing regexp: invalid repeat count: `{1001}`");
        assert!(translate("(?x) a").unwrap_err().0.contains("invalid or unsupported Perl syntax"));
        assert!(compile("(").unwrap_err().0.starts_with("error parsing regexp: "));
        assert!(compile(r"a\").is_err());
    }

    #[test]
    fn common_kubernetes_patterns_keep_their_meaning() {
        let dns = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
        assert!(matches(dns, "my-app.example.com"));
        assert!(!matches(dns, "My_App"));
        assert!(matches(r"^(\d+(\.\d+)?(ms|s|m|h))+$", "1h30m"));
        assert!(matches("ami-[0-9a-z]+", "id: ami-0abc"), "unanchored, as Go's MatchString");
    }

    /// Patterns of the corpus's CRDs that are runs, and runs with flags and escapes.
    const RUNS: &[&str] = &[
        r"^[a-zA-Z0-9][-a-zA-Z0-9]*$",
        r"^[-a-zA-Z0-9_]+$",
        r"^[-a-zA-Z0-9_{}.]+$",
        r"^[a-zA-Z_][a-zA-Z0-9_]*$",
        r"^[a-zA-Z0-9-_]+$",
        r"^[^\x00-\x2f\x7b-\x{10ffff}]*$",
        r"(?i)^[a-f][0-9a-f]{2,}$",
        r"^\d\w*$",
    ];

    #[test]
    fn runs_are_recognised_and_other_shapes_are_not() {
        for go in RUNS {
            assert!(matches!(Matcher::compile(go), Ok(Matcher::Run(_))), "{go} is a run");
        }
        for go in [r"[a-z]+", r"^[a-z]+", r"^[a-zé]+$", r"^[a-z]{1,3}$", r"^[^a-z]+$", r"(?m)^[a-z]+$", r"^a+$"] {
            assert!(matches!(Matcher::compile(go), Ok(Matcher::Regex(_))), "{go} is left to the regex");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// A run matches exactly what its regex matches.
        #[test]
        fn runs_match_as_their_regexes_do(s in "[-a-zA-Z0-9_{}./ é\n\x00]{0,6}") {
            for go in RUNS {
                let Ok(Matcher::Run(run)) = Matcher::compile(go) else { panic!("{go} is a run") };
                proptest::prop_assert_eq!(run.is_match(&s), matches(go, &s), "pattern {} on {:?}", go, s);
            }
        }
    }

    /// Translation is linear in the pattern: 10n characters take about ten times the work of
    /// n (it was quadratic for many `[:` or `{`, which CEL's `find()` meets in manifest
    /// values). Timed as a ratio of two sizes in one run, generous against noise.
    #[test]
    fn translation_is_linear() {
        for (name, unit) in [("posix", "[[:"), ("repeat", "{1"), ("mixed", "a{[[:b")] {
            let ratio = crate::__private::growth_ratio(4_000, |n| {
                let _ = translate(&unit.repeat(n));
            });
            assert!(ratio < crate::__private::LINEAR_GROWTH, "{name}: 10x the pattern took {ratio:.1}x the time");
        }
    }
}
