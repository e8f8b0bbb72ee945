//! Phase 5, write: generated modules to `OUT_DIR` (build.rs) or to a crate of their own
//! (`cargo kubeskema generate`). The only module that writes files; it never rewrites a file
//! whose content is unchanged, so cargo does not rebuild for nothing.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Code, Diagnostic, Diagnostics};
use crate::pipeline::{self, GeneratedModule, Generation};

/// Settings for generating from build.rs (the prost-build shape: `&mut Self` setters).
///
/// ```no_run
/// // build.rs
/// fn main() -> Result<(), Box<dyn std::error::Error>> {
///     kubeskema_codegen::Config::new()
///         .crd("crds/widgets.yaml")
///         .docs(false)
///         .generate()?;
///     Ok(())
/// }
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    inputs: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    docs: bool,
    include_file: String,
    cargo_instructions: bool,
    skip_non_crds: bool,
    kube: bool,
    interpretable: bool,
    apply_configurations: bool,
    hubs: std::collections::BTreeMap<String, String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            inputs: Vec::new(),
            out_dir: None,
            docs: true,
            include_file: "kubeskema.rs".into(),
            cargo_instructions: true,
            skip_non_crds: false,
            kube: false,
            interpretable: false,
            apply_configurations: false,
            hubs: Default::default(),
        }
    }
}

impl Config {
    /// A configuration with no inputs, docs on, writing to `$OUT_DIR`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a CRD file or a folder of them (read recursively).
    pub fn crd(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.inputs.push(path.as_ref().to_owned());
        self
    }

    /// Adds several CRD files or folders.
    pub fn crds<P: AsRef<Path>>(&mut self, paths: &[P]) -> &mut Self {
        self.inputs.extend(paths.iter().map(|p| p.as_ref().to_owned()));
        self
    }

    /// Writes to this folder instead of `$OUT_DIR`.
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Whether schema descriptions become doc comments (default: yes).
    pub fn docs(&mut self, on: bool) -> &mut Self {
        self.docs = on;
        self
    }

    /// The name of the file to `include!` (default `kubeskema.rs`).
    pub fn include_file(&mut self, name: impl Into<String>) -> &mut Self {
        self.include_file = name.into();
        self
    }

    /// Whether to print `cargo::rerun-if-changed` and `cargo::warning` lines (default: yes).
    pub fn cargo_instructions(&mut self, on: bool) -> &mut Self {
        self.cargo_instructions = on;
        self
    }

    /// Skip documents that are not CRDs (with a warning) instead of refusing them: for
    /// bundles that also hold Namespaces, Deployments, ... (default: refuse).
    pub fn skip_non_crds(&mut self, on: bool) -> &mut Self {
        self.skip_non_crds = on;
        self
    }

    /// kube-rs mode (default: off): root types implement `kube::Resource` and
    /// `kube::CustomResourceExt` (`crd()` gives the CRD back), `HasSpec`/`HasStatus`, and use
    /// k8s-openapi's `ObjectMeta`, `Condition` and `ObjectReference` (the last two where the
    /// schema is exactly theirs). The crate then needs `kubeskema` with feature `kube`, and
    /// k8s-openapi with a Kubernetes version feature, as kube-rs does.
    pub fn kube(&mut self, on: bool) -> &mut Self {
        self.kube = on;
        self
    }

    /// CEL values for every type a rule sees, so that rules compiled to Rust can also be
    /// interpreted (see [`pipeline::Options::interpretable`]); off by default.
    pub fn interpretable(&mut self, on: bool) -> &mut Self {
        self.interpretable = on;
        self
    }

    /// Server-side apply configurations (default: off): every type also derives
    /// `kubeskema::ApplyConfiguration`, so that beside `Widget` there is `WidgetApply`, the
    /// configuration an apply sends, with builders (`WidgetApply::new("name")`).
    pub fn apply_configurations(&mut self, on: bool) -> &mut Self {
        self.apply_configurations = on;
        self
    }

    /// The hub of `crd`'s conversions (its `metadata.name`): `version`, a served one, instead
    /// of the storage version.
    pub fn hub(&mut self, crd: impl Into<String>, version: impl Into<String>) -> &mut Self {
        self.hubs.insert(crd.into(), version.into());
        self
    }

    /// Runs every phase without writing anything.
    pub fn run(&self) -> Result<Generation, Diagnostics> {
        pipeline::run(
            &self.inputs,
            pipeline::Options {
                docs: self.docs,
                keep_going: false,
                skip_non_crds: self.skip_non_crds,
                kube: self.kube,
                interpretable: self.interpretable,
                native_cel: true,
                apply_configurations: self.apply_configurations,
                hubs: self.hubs.clone(),
            },
        )
    }

    /// Generates into the output folder: one file per group/version under `kubeskema/`, and
    /// the include file that declares `pub mod <group> { pub mod <version> { ... } }`.
    pub fn generate(&self) -> Result<Generation, Diagnostics> {
        if self.cargo_instructions {
            for input in &self.inputs {
                rerun_if_changed(input);
            }
        }
        let generation = self.run()?;
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => match std::env::var_os("OUT_DIR") {
                Some(d) => PathBuf::from(d),
                None => {
                    return Err(Diagnostics(vec![
                        Diagnostic::file_error("OUT_DIR", None, Code::Config, "OUT_DIR is not set")
                            .with_help("call generate() from build.rs, or set Config::out_dir"),
                    ]));
                }
            },
        };
        if self.cargo_instructions {
            for file in &generation.inputs {
                rerun_if_changed(file);
            }
            for w in &generation.warnings {
                println!("cargo::warning={}", w.to_string().replace('\n', " "));
            }
        }
        let io_error = |path: &Path, e: io::Error| {
            Diagnostics(vec![Diagnostic::file_error(path, None, Code::Io, format!("cannot write: {e}"))])
        };
        let dir = out_dir.join("kubeskema");
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let mut tree = ModTree::default();
        for m in &generation.modules {
            // `kubeskema/<group>/<version>.rs`: a folder per group keeps `a.b`+`c` and
            // `a`+`b_c` apart, which one flat `a_b_c.rs` would not.
            let rel = format!("{}.rs", m.path.join("/"));
            let path = dir.join(&rel);
            write_if_changed(&path, &m.code).map_err(|e| io_error(&path, e))?;
            let include = format!("include!(concat!(env!(\"OUT_DIR\"), \"/kubeskema/{rel}\"));\n");
            tree.insert(&m.path, include);
        }
        let mut include = String::from("// @generated by kubeskema-codegen; do not edit.\n");
        tree.render(&mut include, 0);
        let path = out_dir.join(&self.include_file);
        write_if_changed(&path, &include).map_err(|e| io_error(&path, e))?;
        Ok(generation)
    }
}

/// Writes `content` to `path` unless the file already holds exactly that.
pub fn write_if_changed(path: &Path, content: &str) -> io::Result<()> {
    // Only a regular file is read or replaced: opening a FIFO at the path would block forever.
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
    {
        return Err(io::Error::other("it exists and is not a regular file (a FIFO, device or folder): remove it"));
    }
    // Read back only what could hold exactly `content`: the read is bounded by what is written.
    if read_regular(path, content.len() as u64).is_some_and(|old| old == content.as_bytes()) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, content)
}

/// Nested `pub mod` blocks, each leaf holding some text.
#[derive(Default)]
struct ModTree {
    children: BTreeMap<String, ModTree>,
    leaf: String,
}

impl ModTree {
    fn insert(&mut self, path: &[String], text: String) {
        match path.split_first() {
            None => self.leaf.push_str(&text),
            Some((first, rest)) => self.children.entry(first.clone()).or_default().insert(rest, text),
        }
    }

    fn render(&self, out: &mut String, depth: usize) {
        let pad = "    ".repeat(depth);
        if !self.leaf.is_empty() {
            out.push_str(&pad);
            out.push_str(&self.leaf);
        }
        for (name, child) in &self.children {
            if depth == 0 {
                // Generated code is written, not tuned for the user's lints: names follow the schema.
                out.push_str("#[allow(clippy::all, rustdoc::all, non_camel_case_types, missing_docs)]\n");
            }
            out.push_str(&format!("{pad}pub mod {name} {{\n"));
            child.render(out, depth + 1);
            out.push_str(&format!("{pad}}}\n"));
        }
    }
}

/// How a generated crate depends on the `kubeskema` runtime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dependency {
    /// `kubeskema = { path = "..." }`.
    Path(PathBuf),
    /// `kubeskema = "<version>"` from crates.io.
    Version(String),
}

impl Dependency {
    /// The runtime next to this codegen, when it was built from a checkout of the repository
    /// (so a generated crate builds before anything is published); the released version
    /// otherwise.
    pub fn default_for_this_build() -> Dependency {
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
        match checkout.join("Cargo.toml").is_file() {
            true => Dependency::Path(checkout.canonicalize().unwrap_or(checkout)),
            false => Dependency::Version(env!("CARGO_PKG_VERSION").to_owned()),
        }
    }

    fn toml(&self, features: &str) -> String {
        match self {
            Dependency::Path(p) => {
                format!("kubeskema = {{ path = {}{features} }}", toml_string(&p.display().to_string()))
            }
            Dependency::Version(v) => format!("kubeskema = {{ version = {}{features} }}", toml_string(v)),
        }
    }
}

/// The first line of every `Cargo.toml` kubeskema writes: how a folder shows it was written by
/// kubeskema and may be written again.
pub const CRATE_MARKER: &str = "# @generated by kubeskema-codegen";

/// Whether `dir` may receive a generated crate: it is missing or empty, or its `Cargo.toml`
/// was written by kubeskema ([`CRATE_MARKER`]). Otherwise it is someone's crate (or anything
/// else) and writing would overwrite `Cargo.toml`, `src/lib.rs` and modules without a word.
pub fn out_dir_problem(dir: &Path) -> Option<String> {
    // A missing or empty folder may receive the crate.
    let mut entries = std::fs::read_dir(dir).ok()?;
    let _first = entries.next()?;
    // The marker is the file's start: nothing more is read, and nothing but a regular file
    // (a FIFO would block, `/dev/zero` never ends).
    let start = read_regular_start(&dir.join("Cargo.toml"), CRATE_MARKER.len());
    let ours = start.is_some_and(|s| s == CRATE_MARKER.as_bytes());
    (!ours).then(|| {
        format!(
            "{} is not empty and was not written by kubeskema (no `{CRATE_MARKER}` Cargo.toml): its files would be overwritten",
            dir.display()
        )
    })
}

/// A regular file's bytes, if it is one of exactly `len` bytes; else `None` (a FIFO, device
/// or folder is not opened; another length is not read).
fn read_regular(path: &Path, len: u64) -> Option<Vec<u8>> {
    let meta = std::fs::metadata(path).ok()?;
    (meta.is_file() && meta.len() == len).then(|| std::fs::read(path).ok()).flatten()
}

/// The first `len` bytes of a regular file (fewer if it is shorter); `None` for anything else.
fn read_regular_start(path: &Path, len: usize) -> Option<Vec<u8>> {
    use std::io::Read;
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut start = Vec::with_capacity(len);
    std::fs::File::open(path).ok()?.take(len as u64).read_to_end(&mut start).ok()?;
    Some(start)
}

/// Why Cargo would refuse `name` as a package name, if it would: empty, characters other than
/// ASCII letters, digits, `-` and `_`, or a leading digit.
pub fn crate_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("must not be empty")
    } else if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        Some("may only hold ASCII letters, digits, `-` and `_`")
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        Some("must not start with a digit")
    } else {
        None
    }
}

/// A crate name made from a folder's name: characters Cargo refuses become `-`, and a name
/// that would start with a digit (or be empty) gets the prefix `crds-`.
pub fn crate_name_from(folder: &str) -> String {
    let name: String = folder.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '-' }).collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) { format!("crds-{name}") } else { name }
}

/// A TOML basic string: `"`, `\\` and control characters escaped.
fn toml_string(s: &str) -> String {
    kubeskema::issue::double_quoted(s, char::is_control)
}

/// Writes a crate that builds on its own: `Cargo.toml`, `src/lib.rs` and one file per
/// module (`src/<group>/<version>.rs`). Returns the files written. `kube`: the modules were
/// generated in kube-rs mode ([`Config::kube`]), so the crate depends on k8s-openapi too.
pub fn write_crate(
    dir: &Path,
    crate_name: &str,
    dependency: &Dependency,
    kube: bool,
    modules: &[GeneratedModule],
) -> io::Result<Vec<PathBuf>> {
    if let Some(problem) = crate_name_problem(crate_name) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("crate name {crate_name:?}: {problem}")));
    }
    let mut written = Vec::new();
    let dependencies = if kube {
        format!(
            "{}\n# The Kubernetes version is the application's choice, as with kube-rs; to build this\n# crate alone: cargo build --features k8s-openapi/latest\nk8s-openapi = {{ version = \"0.29\", default-features = false, features = [\"std\"] }}",
            dependency.toml(", features = [\"kube\"]")
        )
    } else {
        dependency.toml("")
    };
    let name = toml_string(crate_name);
    let cargo_toml = format!(
        "{CRATE_MARKER}; do not edit.\n[package]\nname = {name}\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[lib]\ndoctest = false\n\n[dependencies]\n{dependencies}\n\n# Not part of the enclosing workspace, if any.\n[workspace]\n"
    );
    let mut file = |rel: PathBuf, content: &str| -> io::Result<()> {
        let path = dir.join(&rel);
        write_if_changed(&path, content)?;
        written.push(path);
        Ok(())
    };
    file("Cargo.toml".into(), &cargo_toml)?;
    let mut tree = ModTree::default();
    for m in modules {
        let mut rel = PathBuf::from("src");
        for part in &m.path {
            rel.push(part);
        }
        rel.set_extension("rs");
        file(rel, &m.code)?;
        tree.insert(&m.path, String::new());
    }
    // One `mod.rs` per inner folder, declaring its children.
    let mut lib = String::from(
        "// @generated by kubeskema-codegen; do not edit.\n//! Types generated from CustomResourceDefinitions by kubeskema.\n#![allow(clippy::all, rustdoc::all, non_camel_case_types, non_snake_case)]\n\n",
    );
    for name in tree.children.keys() {
        lib.push_str(&format!("pub mod {name};\n"));
    }
    file("src/lib.rs".into(), &lib)?;
    let mut stack: Vec<(PathBuf, &ModTree)> =
        tree.children.iter().map(|(n, t)| (PathBuf::from("src").join(n), t)).collect();
    while let Some((rel, node)) = stack.pop() {
        if node.children.is_empty() {
            continue;
        }
        let mut text = String::from("// @generated by kubeskema-codegen; do not edit.\n");
        for name in node.children.keys() {
            text.push_str(&format!("pub mod {name};\n"));
        }
        file(rel.join("mod.rs"), &text)?;
        stack.extend(node.children.iter().map(|(n, t)| (rel.join(n), t)));
    }
    Ok(written)
}

/// `cargo::rerun-if-changed=<path>`. Cargo reads one directive a line: a path with a line
/// break would end this one and start another of the file's choosing (`cargo::rustc-link-arg`),
/// so such a file is watched through its folder.
fn rerun_if_changed(path: &Path) {
    if let Some(line) = rerun_directive(path) {
        println!("{line}");
    }
}

fn rerun_directive(path: &Path) -> Option<String> {
    let mut watched = path;
    while watched.to_string_lossy().contains(['\n', '\r']) {
        watched = watched.parent()?;
    }
    (!watched.as_os_str().is_empty()).then(|| format!("cargo::rerun-if-changed={}", watched.display()))
}

#[cfg(test)]
mod tests {
    /// A file name with a line break cannot add a directive of its own to build.rs's output.
    #[test]
    fn a_line_break_in_a_file_name_cannot_forge_a_cargo_directive() {
        let forged = Path::new("crds/x.yaml\ncargo::rustc-link-arg=-Wl,evil\n.yaml");
        assert_eq!(super::rerun_directive(forged).as_deref(), Some("cargo::rerun-if-changed=crds"));
        let nested = Path::new("crds/a\rb/c.yaml");
        assert_eq!(super::rerun_directive(nested).as_deref(), Some("cargo::rerun-if-changed=crds"));
        assert_eq!(super::rerun_directive(Path::new("\nx")), None);
        assert_eq!(
            super::rerun_directive(Path::new("crds/w.yaml")).as_deref(),
            Some("cargo::rerun-if-changed=crds/w.yaml")
        );
    }

    use super::*;

    /// Cargo's package-name rule is checked before anything is written, and names and paths
    /// are TOML strings (Rust's `{:?}` writes `\u{..}` escapes TOML refuses).
    #[test]
    fn crate_names_and_toml_strings() {
        assert_eq!(crate_name_problem("my-crds_2"), None);
        assert!(crate_name_problem("").is_some());
        assert!(crate_name_problem("a\"b").is_some());
        assert!(crate_name_problem("2crds").is_some());
        assert!(crate_name_problem("é").is_some());
        assert_eq!(crate_name_from("my crds.v1"), "my-crds-v1");
        assert_eq!(crate_name_from("1st"), "crds-1st");
        assert_eq!(toml_string("a\"b\\c\u{7f}\u{1}é"), r#""a\"b\\c\u007f\u0001é""#);
        let dir = std::env::temp_dir().join(format!("kubeskema-write-{}", std::process::id()));
        let err = write_crate(&dir, "bad name", &Dependency::Version("0.1.0".into()), false, &[]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(!dir.exists(), "nothing written");
    }

    /// A FIFO (or a folder) where a file is to be written is refused at once; opening it would
    /// block forever.
    #[test]
    fn only_regular_files_are_replaced() {
        let dir = std::env::temp_dir().join(format!("kubeskema-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("lib.rs");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        if made {
            let err = write_if_changed(&fifo, "x").unwrap_err();
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
        let err = write_if_changed(&dir, "x").unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        write_if_changed(&dir.join("ok.rs"), "x").unwrap();
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// An output folder whose `Cargo.toml` is a FIFO or a link to `/dev/zero` is judged at
    /// once (not ours), without blocking on the FIFO or reading the device: a check that hangs
    /// fails here after ten seconds instead of hanging the tests.
    #[test]
    fn the_output_folder_check_reads_only_a_regular_files_start() {
        let dir = std::env::temp_dir().join(format!("kubeskema-outdir-{}", std::process::id()));
        for (name, make) in [("fifo", "mkfifo"), ("zero", "ln")] {
            let out = dir.join(name);
            std::fs::create_dir_all(&out).unwrap();
            let toml = out.join("Cargo.toml");
            let made = match make {
                "mkfifo" => std::process::Command::new("mkfifo").arg(&toml).status(),
                _ => std::process::Command::new("ln").arg("-s").arg("/dev/zero").arg(&toml).status(),
            };
            if !made.is_ok_and(|s| s.success()) {
                continue;
            }
            let (tx, rx) = std::sync::mpsc::channel();
            let judged = out.clone();
            std::thread::spawn(move || tx.send(out_dir_problem(&judged)).ok());
            let problem =
                rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap_or_else(|_| panic!("{name}: hangs"));
            assert!(problem.is_some_and(|p| p.contains("not written by kubeskema")), "{name}");
            let err = write_if_changed(&toml, "x").unwrap_err();
            assert!(err.to_string().contains("not a regular file"), "{name}: {err}");
        }
        std::fs::remove_dir_all(dir).ok();
    }
}
