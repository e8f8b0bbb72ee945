//! The shape of the house (ARCHITECTURE.md): the rooms of `codegen/src` and `runtime/src/cel`
//! import each other without cycles, and a crate's top level stays small enough to read at a
//! glance, each entry named for a phase or a layer.
//!
//! Read from the source text: every `crate::a::b`, `super::a` and `self::a` path in a file (and
//! `a::` for a module the file declares itself) is an edge from the file's module to the
//! deepest module the path names. A parent that only declares a child (`mod child;`) does not
//! depend on it; a parent that uses it does.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Module path (`["check", "rules"]`) → the file's text, for every `.rs` file under `src`.
fn modules(src: &Path) -> BTreeMap<Vec<String>, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable source folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).expect("under src").with_extension("");
            let mut name: Vec<String> =
                relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            if matches!(name.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                name.pop();
            }
            out.insert(name, std::fs::read_to_string(&path).expect("readable source"));
        }
    }
    out
}

/// The text without comments and string literals (paths in docs are not imports).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // An inline `mod tests` (last in a file, under a `cfg` naming `test`) may use any layer:
    // tests are not imports of the module they test.
    let text = match text.find("\nmod tests {") {
        Some(at) if text[..at].lines().last().is_some_and(|l| l.starts_with("#[cfg(") && l.contains("test")) => {
            &text[..at]
        }
        _ => text,
    };
    for line in text.lines() {
        // A quote in a char literal opens no string.
        let line = line.trim_start().replace("'\"'", "' '").replace("'\\\"'", "' '");
        if line.starts_with("//") {
            continue;
        }
        let mut in_string = false;
        let mut prev = ' ';
        for c in line.chars() {
            if c == '"' && prev != '\\' {
                in_string = !in_string;
            } else if !in_string {
                out.push(c);
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
        }
        out.push('\n');
    }
    out
}

/// The modules a file declares (`mod child;`), which its paths may start from.
fn declared_children(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("pub ").or_else(|| l.strip_prefix("pub(crate) ")).unwrap_or(l);
            let rest = rest.strip_prefix("pub(super) ").unwrap_or(rest);
            rest.strip_prefix("mod ")?.strip_suffix(';').map(str::to_owned)
        })
        .collect()
}

/// A path written in `module` made absolute in the crate (`crate`, `self`, `super`, or a child
/// the file declares), or `None` for a path into another crate or a local item.
fn resolve(module: &[String], children: &BTreeSet<String>, path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path.first()?.as_str() {
        "crate" => Vec::new(),
        "self" => module.to_vec(),
        "super" => module[..module.len().checked_sub(1)?].to_vec(),
        first if children.contains(first) && path.len() > 1 => {
            let mut base = module.to_vec();
            base.push(first.to_owned());
            return Some(base.into_iter().chain(path[1..].iter().cloned()).collect());
        }
        _ => return None,
    };
    let mut rest = &path[1..];
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The paths a file names: each a sequence of identifiers joined by `::`, with the module it is
/// relative to resolved (`crate`, `super`, `self`, or a child the file declares).
fn named_paths(module: &[String], text: &str) -> Vec<Vec<String>> {
    let code = code_only(text);
    let children = declared_children(&code);
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let inline = inline_modules(&chars);
    // The module a path at `at` is written in: the file's, or an inline `mod name { ... }`'s.
    let module_at = |at: usize| -> Vec<String> {
        let mut module = module.to_vec();
        for (name, range) in &inline {
            if range.contains(&at) {
                module.push(name.clone());
            }
        }
        module
    };
    let mut i = 0;
    while i < chars.len() {
        if !is_ident(chars[i]) || (i > 0 && (is_ident(chars[i - 1]) || chars[i - 1] == ':')) {
            i += 1;
            continue;
        }
        // A path starts here: read `ident(::ident)*`, and `::{a, b::c}` groups one level deep.
        let mut segments = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < chars.len() && is_ident(chars[j]) {
                j += 1;
            }
            segments.push(chars[start..j].iter().collect::<String>());
            if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
                j += 2;
                if chars.get(j) == Some(&'{') {
                    let end = (j..chars.len()).find(|&k| chars[k] == '}').unwrap_or(chars.len());
                    let group: String = chars[j + 1..end].iter().collect();
                    for member in group.split(',') {
                        let mut path = segments.clone();
                        let member = member.split(" as ").next().unwrap_or(member);
                        path.extend(member.trim().split("::").map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()));
                        out.push((i, path));
                    }
                    j = end;
                    break;
                }
                if j < chars.len() && is_ident(chars[j]) {
                    continue;
                }
                if chars.get(j) == Some(&'*') {
                    segments.push("*".into());
                }
            }
            out.push((i, segments.clone()));
            break;
        }
        i = j.max(i + 1);
    }
    out.into_iter()
        // A lone `super` or `crate` is a visibility (`pub(super)`), not a path.
        .filter(|(_, path)| path.len() > 1)
        .filter_map(|(at, path)| resolve(&module_at(at), &children, &path))
        .collect()
}

/// Each module's re-exports of its own crate's items: (module, name) → the absolute path the
/// name stands for. Re-exports of other crates' items are left out: they name no layer.
fn reexports(modules: &BTreeMap<Vec<String>, String>) -> BTreeMap<(Vec<String>, String), Vec<String>> {
    let mut out = BTreeMap::new();
    for (module, text) in modules {
        let code = code_only(text);
        let children = declared_children(&code);
        for statement in code.split(';') {
            let Some(body) = ["pub use ", "pub(crate) use ", "pub(super) use "]
                .iter()
                .find_map(|opener| statement.rsplit_once(opener).map(|(_, body)| body.trim()))
            else {
                continue;
            };
            let (prefix, members) = match body.split_once("::{") {
                Some((prefix, group)) => (prefix, group.trim_end_matches('}').split(',').collect::<Vec<_>>()),
                None => match body.rsplit_once("::") {
                    Some((prefix, member)) => (prefix, vec![member]),
                    None => continue,
                },
            };
            for member in members.iter().map(|m| m.trim()).filter(|m| !m.is_empty() && *m != "*") {
                let (member, alias) = match member.split_once(" as ") {
                    Some((member, alias)) => (member.trim(), alias.trim()),
                    None => (member, member.rsplit("::").next().unwrap_or(member)),
                };
                let path: Vec<String> =
                    prefix.split("::").chain(member.split("::")).map(|s| s.trim().to_owned()).collect();
                if let Some(target) = resolve(module, &children, &path) {
                    out.insert((module.clone(), alias.to_owned()), target);
                }
            }
        }
    }
    out
}

/// Where a path really leads, following re-exports to where the item is defined: the module
/// that defines it, the whole path from there, and whether it went through a re-export.
fn real_module(
    path: &[String],
    modules: &BTreeMap<Vec<String>, String>,
    reexports: &BTreeMap<(Vec<String>, String), Vec<String>>,
) -> Option<(Vec<String>, Vec<String>, bool)> {
    let mut path = path.to_vec();
    let mut hopped = false;
    // A bound, not a loop: a re-export chain is a few hops at most.
    for _ in 0..8 {
        let n = (0..=path.len()).rev().find(|&n| modules.contains_key(&path[..n]))?;
        match path.get(n).and_then(|name| reexports.get(&(path[..n].to_vec(), name.clone()))) {
            Some(target) => {
                path = target.iter().chain(&path[n + 1..]).cloned().collect();
                hopped = true;
            }
            None => return Some((path[..n].to_vec(), path, hopped)),
        }
    }
    None
}

/// Each inline `mod name { ... }` of a file's code, with the range of characters it spans.
fn inline_modules(chars: &[char]) -> Vec<(String, std::ops::Range<usize>)> {
    let text: String = chars.iter().collect();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("mod ") {
        let start = from + found;
        from = start + 4;
        let rest = &text[from..];
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        if name.is_empty() || !rest[name.len()..].trim_start().starts_with('{') {
            continue;
        }
        let open = from + name.len() + (rest[name.len()..].len() - rest[name.len()..].trim_start().len());
        let mut depth = 0;
        let mut end = text.len();
        for (k, c) in text[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        // Positions are in characters, as the caller counts them.
        let to_chars = |byte: usize| text[..byte].chars().count();
        out.push((name, to_chars(open)..to_chars(end)));
    }
    out
}

/// Edges between the modules under `within` (a module path prefix): module → modules it names,
/// each followed through re-exports to the module that defines the item.
fn graph(src: &Path, within: &[&str]) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = modules(src);
    let reexports = reexports(&modules);
    let inside = |m: &[String]| m.len() >= within.len() && m.iter().zip(within).all(|(a, b)| a == b);
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for (module, text) in modules.iter().filter(|(m, _)| inside(m)) {
        let targets = edges.entry(module.clone()).or_default();
        for path in named_paths(module, text) {
            let target = real_module(&path, &modules, &reexports).map(|(target, _, _)| target);
            if let Some(target) = target.filter(|t| inside(t) && t != module) {
                targets.insert(target);
            }
        }
    }
    edges
}

/// A cycle in the graph, as the modules along it, if there is one.
fn find_cycle(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        marks: &mut BTreeMap<Vec<String>, Mark>,
        trail: &mut Vec<Vec<String>>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let from = trail.iter().position(|n| n == node).unwrap_or(0);
                let mut cycle: Vec<String> = trail[from..].iter().map(|m| m.join("::")).collect();
                cycle.push(node.join("::"));
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.clone(), Mark::Open);
        trail.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, marks, trail) {
                return Some(cycle);
            }
        }
        trail.pop();
        marks.insert(node.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    edges.keys().find_map(|node| visit(node, edges, &mut marks, &mut Vec::new()))
}

#[test]
fn codegen_modules_import_without_cycles() {
    let edges = graph(&root().join("codegen/src"), &[]);
    assert!(edges.len() > 15, "the reader found the modules: {:?}", edges.keys());
    assert_eq!(find_cycle(&edges), None, "an import cycle in codegen/src");
}

/// The test's reader finds a cycle where there is one (else the tests above could not fail).
#[test]
fn the_reader_finds_cycles() {
    let dir = std::env::temp_dir().join(format!("kubeskema-house-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "mod inner;\n// crate::b is only named in a comment\n").unwrap();
    std::fs::write(dir.join("a/inner.rs"), "use crate::b::{Thing, other::More};\n").unwrap();
    std::fs::write(dir.join("b.rs"), "fn f() { crate::a::inner::g(); }\n").unwrap();
    let edges = graph(&dir, &[]);
    let cycle = find_cycle(&edges);
    std::fs::write(dir.join("b.rs"), "fn f() { let s = \"crate::a::inner\"; }\n").unwrap();
    let acyclic = find_cycle(&graph(&dir, &[]));
    std::fs::write(dir.join("b.rs"), "fn f() {}\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "mod inner;\nfn g() { inner::h(); }\n").unwrap();
    std::fs::write(dir.join("a/inner.rs"), "fn h() { super::g(); }\n").unwrap();
    let parent_child = find_cycle(&graph(&dir, &[]));
    // Inside an inline module, `super` is the file's module.
    std::fs::write(dir.join("a/mod.rs"), "mod inner;\nmod local {\n    use super::inner::h;\n}\n").unwrap();
    std::fs::write(dir.join("a/inner.rs"), "mod t {\n    use super::super::g;\n}\n").unwrap();
    let through_inline = find_cycle(&graph(&dir, &[]));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(cycle, Some(vec!["a::inner".into(), "b".into(), "a::inner".into()]));
    assert_eq!(acyclic, None);
    assert_eq!(parent_child, Some(vec!["a".into(), "a::inner".into(), "a".into()]));
    assert_eq!(through_inline, Some(vec!["a".into(), "a::inner".into(), "a".into()]));
}

/// A crate's top level: at most ten modules (the crate roots `lib.rs` and `main.rs` aside),
/// none a junk drawer.
fn top_level(src: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(src)
        .expect("readable")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().trim_end_matches(".rs").to_owned())
        .filter(|n| n != "lib" && n != "main")
        .collect();
    names.sort();
    names
}

#[test]
fn codegen_top_level_is_small_and_named_for_phases() {
    let names = top_level(&root().join("codegen/src"));
    assert!(names.len() <= 10, "{} top-level modules in codegen/src: {names:?}", names.len());
    for junk in ["util", "utils", "common", "misc", "helpers"] {
        assert!(!names.iter().any(|n| n == junk), "codegen/src/{junk}");
    }
}

#[test]
fn runtime_top_level_is_the_declared_layers() {
    let names = top_level(&root().join("runtime/src"));
    let mut layers: Vec<String> = RUNTIME_LAYERS.iter().map(|l| l.to_string()).collect();
    layers.sort();
    assert_eq!(names, layers, "every top-level module of runtime/src is a layer of the declared order");
}

#[test]
fn cel_stages_are_the_declared_order() {
    let mut names = top_level(&root().join("runtime/src/cel"));
    names.retain(|n| n != "mod");
    let mut stages: Vec<String> = CEL_LAYERS.iter().map(|l| l.to_string()).collect();
    stages.sort();
    assert_eq!(names, stages, "every module of runtime/src/cel is a stage of the declared order");
}

#[test]
fn cel_modules_import_without_cycles() {
    let edges = graph(&root().join("runtime/src"), &["cel"]);
    assert!(edges.len() > 10, "the reader found the modules: {:?}", edges.keys());
    assert_eq!(find_cycle(&edges), None, "an import cycle in runtime/src/cel");
}

/// Each import that points up the declared order: `(from, to)` modules, as text. A module's
/// layer is its path's segment at `depth` (the first for the crate, the second inside `cel`);
/// the facade above the layers (`lib.rs`, `cel/mod.rs`) may name every layer and none may name it.
fn against_order(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>, depth: usize, order: &[&str]) -> Vec<String> {
    let rank = |m: &[String]| m.get(depth).map(|layer| order.iter().position(|l| l == layer));
    let mut out = Vec::new();
    for (from, targets) in edges {
        for to in targets {
            let wrong = match (rank(from), rank(to)) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(from), Some(to)) => match (from, to) {
                    (Some(from), Some(to)) => to > from,
                    _ => true,
                },
            };
            if wrong {
                out.push(format!("{} -> {}", from.join("::"), to.join("::")));
            }
        }
    }
    out
}

/// The runtime's layers, lowest first (ARCHITECTURE.md, Invariants).
const RUNTIME_LAYERS: &[&str] =
    &["types", "report", "go", "schema", "check", "cel", "typed", "read", "dynamic", "testing", "__private", "kube"];

/// The stages of the CEL compiler, lowest first (ARCHITECTURE.md, Invariants).
const CEL_LAYERS: &[&str] = &["vocabulary", "lowering", "library", "front", "cost", "compile", "running", "count"];

#[test]
fn runtime_imports_follow_the_layer_order() {
    let mut edges = graph(&root().join("runtime/src"), &[]);
    // `kubeskema::cel` is a facade of re-exports (`summary` is defined in `typed`, above CEL).
    edges.remove(&vec!["cel".to_owned()]);
    let wrong = against_order(&edges, 0, RUNTIME_LAYERS);
    assert!(wrong.is_empty(), "{} imports against the order {RUNTIME_LAYERS:?}:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn cel_imports_follow_the_stage_order() {
    let edges = graph(&root().join("runtime/src"), &["cel"]);
    let wrong = against_order(&edges, 1, CEL_LAYERS);
    assert!(wrong.is_empty(), "{} imports against the order {CEL_LAYERS:?}:\n{}", wrong.len(), wrong.join("\n"));
}

/// The paths in `src` that reach an item of the crate through a re-export instead of where it
/// is defined, as `module: path`. Re-exports themselves (`pub use`) are the public face and
/// may chain.
fn through_reexports(src: &Path) -> Vec<String> {
    let modules = modules(src);
    let reexports = reexports(&modules);
    let mut out = Vec::new();
    for (module, text) in &modules {
        let mut own = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) =
            ["pub use ", "pub(crate) use ", "pub(super) use "].iter().filter_map(|o| rest.find(o)).min()
        {
            own.push_str(&rest[..at]);
            rest = rest[at..].split_once(';').map_or("", |(_, after)| after);
        }
        own.push_str(rest);
        for path in named_paths(module, &own) {
            if let Some((_, real, true)) = real_module(&path, &modules, &reexports) {
                out.push(format!("{}: crate::{} is crate::{}", module.join("::"), path.join("::"), real.join("::")));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn runtime_imports_by_real_paths() {
    let hops = through_reexports(&root().join("runtime/src"));
    assert!(
        hops.is_empty(),
        "{} paths through a re-export (name where the item is defined):\n{}",
        hops.len(),
        hops.join("\n")
    );
}

#[test]
fn derive_modules_import_without_cycles() {
    let edges = graph(&root().join("derive/src"), &[]);
    assert!(edges.len() > 10, "the reader found the modules: {:?}", edges.keys());
    assert_eq!(find_cycle(&edges), None, "an import cycle in derive/src");
}

/// Every lint the code turns off says why: `reason = "..."`, or (in code it writes, where a
/// reason would be printed into every expansion or generated file) a comment on the line or
/// a few lines above (one comment for a run of like attributes).
#[test]
fn every_lint_allow_says_why() {
    let dirs = [
        "runtime/src",
        "codegen/src",
        "derive/src",
        "attributes/src",
        "tests/src",
        "tests/tests",
        "bench/src",
        "bench/benches",
        "codegen/benches",
        "docs/guide/src",
        "build-examples/hand-written/src",
        "build-examples/webhook/src",
        "build-examples/build-rs/src",
    ];
    let mut silent = Vec::new();
    for dir in dirs {
        let mut stack = vec![root().join(dir)];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for path in entries.map(|e| e.expect("an entry").path()) {
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("readable");
                let lines: Vec<&str> = text.lines().collect();
                for (i, line) in lines.iter().enumerate() {
                    // This test's own patterns are text, not attributes.
                    let allows = ["#[allow(", "#![allow(", "#[expect("]
                        .iter()
                        .any(|a| line.contains(a) && !line.contains(&format!("\"{a}")));
                    // rustfmt breaks a long attribute over lines: read it to its end.
                    let end = (i..lines.len().min(i + 8)).find(|&j| lines[j].contains(")]")).unwrap_or(i);
                    let attribute = lines[i..=end].join(" ");
                    let said = attribute.contains("reason =")
                        || line.contains("//")
                        || lines[i.saturating_sub(6)..i].iter().any(|l| l.trim_start().starts_with("//"));
                    if allows && !said {
                        let relative = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
                        silent.push(format!("{relative}:{}: {}", i + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(silent.is_empty(), "{} lint allows without a reason:\n{}", silent.len(), silent.join("\n"));
}
