//! `--exclude` patterns: `*` (any characters but `/`), `**` (any, `/` included), `?` (one
//! character but `/`), the rest literal. A pattern with a `/` is matched against the whole
//! path (`manifests/legacy/**`); one without, against each of the path's components
//! (`*.tmpl.yaml` by file name, `charts` for everything below a folder of that name), as
//! `.gitignore` reads them. Matching is a table over pattern and text positions: its time is
//! their lengths' product whatever the pattern (a backtracking matcher is exponential in the
//! stars).

use std::path::Path;

/// Whether `pattern` excludes `path`.
pub fn excludes(pattern: &str, path: &Path) -> bool {
    let text = path.to_string_lossy().replace('\\', "/");
    let text = text.trim_start_matches("./");
    if pattern.contains('/') {
        return matches(pattern.trim_start_matches("./"), text);
    }
    text.split('/').any(|component| matches(pattern, component))
}

#[derive(Clone, Copy, PartialEq)]
enum Token {
    Char(char),
    /// `?`
    One,
    /// `*`
    Run,
    /// `**`
    AnyRun,
}

fn tokens(pattern: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(match c {
            '*' if chars.next_if_eq(&'*').is_some() => Token::AnyRun,
            '*' => Token::Run,
            '?' => Token::One,
            c => Token::Char(c),
        });
    }
    out
}

/// Whether the whole of `text` matches the whole of `pattern`.
fn matches(pattern: &str, text: &str) -> bool {
    let pattern = tokens(pattern);
    let text: Vec<char> = text.chars().collect();
    // `row[j]`: the pattern so far matches `text[..j]`.
    let mut row = vec![false; text.len() + 1];
    row[0] = true;
    for token in pattern {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            next[j] = match token {
                // Nothing, or one more character (not a `/` for `*`).
                Token::Run | Token::AnyRun => {
                    row[j] || (j > 0 && next[j - 1] && (token == Token::AnyRun || text[j - 1] != '/'))
                }
                Token::One => j > 0 && row[j - 1] && text[j - 1] != '/',
                Token::Char(c) => j > 0 && row[j - 1] && text[j - 1] == c,
            };
        }
        row = next;
    }
    row[text.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_as_gitignore_reads_them() {
        let yes = |p: &str, path: &str| assert!(excludes(p, Path::new(path)), "{p} should exclude {path}");
        let no = |p: &str, path: &str| assert!(!excludes(p, Path::new(path)), "{p} should keep {path}");
        yes("kustomization.yaml", "deploy/base/kustomization.yaml");
        yes("*.tmpl.yaml", "deploy/a.tmpl.yaml");
        no("*.tmpl.yaml", "deploy/a.yaml");
        yes("charts", "deploy/charts/x/templates/a.yaml");
        yes("deploy/legacy/**", "./deploy/legacy/old/a.yaml");
        no("deploy/legacy/*", "deploy/legacy/old/a.yaml");
        yes("deploy/legacy/*", "deploy/legacy/a.yaml");
        yes("deploy/**/secret-?.yaml", "deploy/a/b/secret-1.yaml");
        no("deploy/**/secret-?.yaml", "deploy/a/b/secret-12.yaml");
        yes("**", "anything/at/all.json");
        no("a*b", "a/b");
    }

    /// Many stars against a text that almost matches (a backtracking matcher's worst case):
    /// ten times the text takes about ten times as long.
    #[test]
    fn hostile_patterns_take_time_in_proportion_to_the_text() {
        let pattern = "*a".repeat(50) + "b";
        let ratio = kubeskema::__private::growth_ratio(200, |n| assert!(!matches(&pattern, &"a".repeat(n))));
        assert!(ratio < kubeskema::__private::LINEAR_GROWTH, "10x the text took {ratio:.1}x the time");
    }
}
