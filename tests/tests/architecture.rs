//! ARCHITECTURE.md stays true to the tree: every file or folder it names in backticks exists
//! (as the end of a path in the repository, `*` and `<name>` standing for any part of a name),
//! and every Rust name it gives (`validate_each`, `kubeskema::cel::summary`) is in some source
//! file. Names can still be in the wrong sentence; a name that is gone cannot.

use std::path::Path;

/// Names ARCHITECTURE.md may give that are not in this repository: other projects' files.
const ELSEWHERE: &[&str] = &["openapi2jsonschema.py"];

/// Every file and folder of the repository (folders with a trailing `/`), relative to it, build
/// output and hidden folders left out; and the text of every `.rs` file.
fn tree(root: &Path) -> (Vec<String>, String) {
    let (mut paths, mut sources) = (Vec::new(), String::new());
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            let relative = path.strip_prefix(root).expect("under the root").to_string_lossy().replace('\\', "/");
            if path.is_dir() {
                paths.push(format!("{relative}/"));
                stack.push(path);
            } else {
                if name.ends_with(".rs") {
                    sources.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
                    sources.push('\n');
                }
                paths.push(relative);
            }
        }
    }
    (paths, sources)
}

/// The inline code spans of `markdown`, fenced blocks left out.
fn code_spans(markdown: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.extend(line.split('`').skip(1).step_by(2).filter(|s| !s.is_empty()));
        }
    }
    out
}

/// Whether `text` ends with `pattern`, where `*` stands for any run of characters but `/`.
fn ends_with(text: &str, pattern: &str) -> bool {
    (0..=text.len()).filter(|&i| text.is_char_boundary(i)).any(|start| {
        let tail = &text[start..];
        (start == 0 || text[..start].ends_with('/')) && matches(tail, pattern)
    })
}

fn matches(text: &str, pattern: &str) -> bool {
    match pattern.split_once('*') {
        None => text == pattern,
        Some((head, rest)) => {
            let Some(after) = text.strip_prefix(head) else { return false };
            (0..=after.len())
                .filter(|&i| after.is_char_boundary(i) && !after[..i].contains('/'))
                .any(|i| matches(&after[i..], rest))
        }
    }
}

/// What `markdown` names that is not there: paths no repository path ends with, Rust names in
/// no source file.
fn missing(markdown: &str, paths: &[String], sources: &str) -> Vec<String> {
    let word = |w: &str| {
        sources.match_indices(w).any(|(i, _)| {
            let before = sources[..i].chars().next_back();
            let after = sources[i + w.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    let mut out = Vec::new();
    for span in code_spans(markdown) {
        let path_chars = span.chars().all(|c| c.is_ascii_alphanumeric() || "_.-/*<>".contains(c));
        let file =
            [".rs", ".md", ".toml", ".json", ".yaml", ".tsv", ".py", ".sh", "/"].iter().any(|e| span.ends_with(e));
        if path_chars && file && span.contains(['.', '/']) {
            // Outside the repository, another project's, or an extension (`.json`).
            if span.starts_with("../") || ELSEWHERE.contains(&span) || (span.starts_with('.') && !span.contains('/')) {
                continue;
            }
            // `<lib>` is a placeholder for a part of a name.
            let mut pattern = String::new();
            let mut placeholder = false;
            for c in span.chars() {
                match c {
                    '<' => placeholder = true,
                    '>' => {
                        placeholder = false;
                        pattern.push('*');
                    }
                    _ if !placeholder => pattern.push(c),
                    _ => {}
                }
            }
            if !paths.iter().any(|p| ends_with(p, &pattern)) {
                out.push(span.to_owned());
            }
            continue;
        }
        let name = span.strip_suffix("()").unwrap_or(span);
        let rust_name = !name.is_empty()
            && name.split("::").all(|s| {
                s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        if rust_name && !word(name.rsplit("::").next().unwrap_or(name)) {
            out.push(span.to_owned());
        }
    }
    out
}

#[test]
fn architecture_names_only_what_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (paths, sources) = tree(&root);
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md is readable");
    assert_eq!(missing(&text, &paths, &sources), Vec::<String>::new(), "named in ARCHITECTURE.md but not in the tree");
}

#[test]
fn the_check_finds_what_is_not_there() {
    let paths = ["codegen/".to_owned(), "codegen/src/".to_owned(), "codegen/src/write.rs".to_owned()];
    let sources = "pub fn generate() {}\nstruct Config;";
    let text = "`codegen/src/write.rs`, `src/write.rs`, `codegen/src/*.rs`, `codegen/<crate>/` and `generate`;\n\
                `codegen/src/gone.rs`, `write_crate` and `kubeskema::Config2`\n```\n`in/a/fence.rs`\n```";
    assert_eq!(missing(text, &paths, sources), ["codegen/src/gone.rs", "write_crate", "kubeskema::Config2"]);
}

/// The documents a newcomer reads first stay short: the README at most 150 lines, this map at
/// most 250 (what does not fit is a page of the guide, `docs/`).
#[test]
fn first_documents_stay_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (file, most) in [("README.md", 150), ("ARCHITECTURE.md", 250)] {
        let lines = std::fs::read_to_string(root.join(file)).expect("readable").lines().count();
        assert!(lines <= most, "{file} has {lines} lines, at most {most}: move the rest into the guide (docs/)");
    }
}

/// The README and the guide's pages (`docs/*.md`).
fn guide_pages(root: &Path) -> Vec<std::path::PathBuf> {
    let mut pages = vec![root.join("README.md")];
    pages.extend(
        std::fs::read_dir(root.join("docs"))
            .expect("readable")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    pages
}

/// Every page the README and the guide link to exists, and every guide page with Rust examples
/// is compiled by `docs/guide` (so none can rot).
#[test]
fn the_guide_is_linked_and_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let compiled = std::fs::read_to_string(root.join("docs/guide/src/lib.rs")).expect("readable");
    for page in &guide_pages(&root) {
        let text = std::fs::read_to_string(page).expect("readable");
        let name = page.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let dir = page.parent().expect("in a folder");
        for link in text.split("](").skip(1).filter_map(|rest| rest.split(')').next()) {
            if link.starts_with("http") || link.starts_with('#') {
                continue;
            }
            let target = dir.join(link.split('#').next().unwrap_or(link));
            assert!(target.exists(), "{name} links to {link}, which is not there");
        }
        if text.contains("```rust") {
            assert!(
                compiled.contains(&format!("include_str!(\"../../{name}\")"))
                    || compiled.contains(&format!("include_str!(\"../../../{name}\")")),
                "{name} has Rust examples: include it in docs/guide/src/lib.rs so CI compiles them"
            );
        }
    }
}

/// The guide and the README name files of this repository that exist too (their Rust names
/// are the public API's, which the doc tests and rustdoc hold). `instances/` is the shared
/// corpus's folder.
#[test]
fn the_guide_names_only_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (paths, sources) = tree(&root);
    for page in guide_pages(&root) {
        let text = std::fs::read_to_string(&page).expect("readable");
        let gone: Vec<String> = missing(&text, &paths, &sources)
            .into_iter()
            .filter(|span| span.contains('/') && span != "instances/")
            .collect();
        assert!(gone.is_empty(), "{} names files that are not there: {gone:?}", page.display());
    }
}
