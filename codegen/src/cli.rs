//! `cargo kubeskema`: the command line. `main.rs` only parses and calls [`run`], so tests
//! drive the same code without a process.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Parser, Subcommand};

use kubeskema::issue::printable;

use crate::diagnostic::{Code, Diagnostic};
use crate::pipeline;
use crate::write::{Dependency, write_crate};

/// `cargo kubeskema ...` (cargo passes the subcommand name as the first argument).
#[derive(Parser, Debug)]
#[command(name = "cargo", bin_name = "cargo")]
pub enum CargoCli {
    /// Kubernetes CRDs to Rust types with apiserver-identical validation.
    Kubeskema(Args),
}

/// The arguments of `cargo kubeskema`.
#[derive(clap::Args, Debug)]
#[command(version, about)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate a crate of Rust types from CRD files or folders (`-` reads standard input).
    Generate {
        /// CRD files or folders (YAML or JSON, multi-document).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The folder to write the crate into.
        #[arg(long)]
        out: PathBuf,
        /// The generated crate's name (default: the folder's name).
        #[arg(long)]
        crate_name: Option<String>,
        /// Depend on the kubeskema runtime at this path instead of the default (this checkout's
        /// runtime when built from one, else the released version).
        #[arg(long)]
        kubeskema_path: Option<PathBuf>,
        /// Leave schema descriptions out of the generated code.
        #[arg(long)]
        no_docs: bool,
        /// Skip documents that are not CRDs (with a warning) instead of refusing them.
        #[arg(long)]
        skip_non_crds: bool,
        /// kube-rs mode: `kube::Resource`, `CustomResourceExt` (`crd()`), k8s-openapi's
        /// `ObjectMeta`, and its `Condition`/`ObjectReference` where the schema is theirs.
        #[arg(long)]
        kube: bool,
        /// Server-side apply configurations: beside each type `Widget`, `WidgetApply` (every
        /// field optional, builders, `new(name)` on roots).
        #[arg(long)]
        apply_configurations: bool,
        /// The hub of a CRD's conversions, `CRD=VERSION` (`widgets.example.com=v1`), instead of
        /// its storage version; a served version. Repeatable.
        #[arg(long, value_name = "CRD=VERSION")]
        hub: Vec<String>,
        /// Write into `--out` even when it holds files kubeskema did not write.
        #[arg(long)]
        force: bool,
    },
    /// Validate manifests against CRDs as the apiserver would, without a cluster.
    Validate(ValidateArgs),
    /// Show what a server-side apply would store, offline: the merged object with its
    /// `metadata.managedFields`, or the conflicts (exit status 1), as kube-apiserver words them.
    Apply(ApplyArgs),
    /// What a CRD change does to the objects stored under it: the CRD update as the apiserver
    /// judges it, and every change classified, with an object that proves it (exit status 1
    /// when something breaks, 2 when the comparison could not run).
    Compat(CompatArgs),
    /// Check CRDs as the apiserver does (structural schema rules) without generating.
    Check {
        /// CRD files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// `human` (default) or `json` (one object per line).
        #[arg(long, default_value = "human")]
        output: String,
        /// Skip documents that are not CRDs (with a warning) instead of refusing them.
        #[arg(long)]
        skip_non_crds: bool,
    },
}

/// The arguments of `cargo kubeskema compat`.
#[derive(clap::Args, Debug)]
pub struct CompatArgs {
    /// OLD then NEW: CRD files or folders (YAML or JSON, multi-document, `List`s). With
    /// `--old-ref`, only NEW: OLD is the same files at that git revision.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Read OLD from git: NEW's files at this revision (a pull request's base branch).
    #[arg(long, value_name = "REF")]
    pub old_ref: Option<String>,
    /// The versions objects are stored in (`status.storedVersions` of the live CRD), comma
    /// separated; default: OLD's `status.storedVersions`, else its storage version.
    #[arg(long, value_name = "V1,V2", value_delimiter = ',')]
    pub stored_versions: Option<Vec<String>>,
    /// A class that does not fail the run (repeatable): compatible, cel-cost,
    /// needs-migration, tightens, blocks-updates, drops-data, breaks-clients.
    #[arg(long, value_name = "CLASS")]
    pub allow: Vec<String>,
    /// A deliberate break that does not fail the run (repeatable): `CRD`, `CRD/VERSION` or
    /// `CRD/VERSION/FIELD` (as the help line of each error prints it).
    #[arg(long, value_name = "ID")]
    pub acknowledge: Vec<String>,
    /// A policy file (YAML or JSON): `{allow: [CLASS...], acknowledge: [ID...]}`, added to the flags.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Show documentation-only changes too.
    #[arg(long)]
    pub verbose: bool,
    /// The objects stored today (manifests, `kubectl get -o yaml` output; files or folders),
    /// each validated against NEW as a create and as an update that changes nothing.
    #[arg(long, value_name = "PATH")]
    pub objects: Vec<PathBuf>,
    /// `human` (default), `json` (one object per line), `sarif` (code scanning), `junit` (a CI
    /// test report) or `markdown` (a pull-request comment).
    #[arg(long, default_value = "human", value_parser = ["human", "json", "sarif", "junit", "markdown"])]
    pub output: String,
}

/// The arguments of `cargo kubeskema apply`.
#[derive(clap::Args, Debug)]
pub struct ApplyArgs {
    /// CRD files or folders (repeatable; documents that are not CRDs are skipped).
    #[arg(long = "crd", value_name = "PATH", required = true)]
    pub crds: Vec<PathBuf>,
    /// The field manager applying (`--field-manager` of kubectl).
    #[arg(long, value_name = "NAME")]
    pub manager: String,
    /// The stored object, with its `metadata.managedFields` (absent: the apply creates it).
    #[arg(long, value_name = "PATH")]
    pub live: Option<PathBuf>,
    /// Take the fields other managers own (`--force-conflicts`).
    #[arg(long)]
    pub force: bool,
    /// Apply to a subresource: `status`.
    #[arg(long, value_name = "NAME", value_parser = ["status"])]
    pub subresource: Option<String>,
    /// The time to stamp on the managed fields written (RFC 3339; default: now), for output
    /// that does not change from run to run.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
    /// `yaml` (default) or `json`.
    #[arg(long, default_value = "yaml", value_parser = ["yaml", "json"])]
    pub output: String,
    /// The configuration applied: one object (YAML or JSON; `-` reads standard input).
    pub applied: PathBuf,
}

/// The arguments of `cargo kubeskema validate`.
#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// CRD files or folders (repeatable; documents that are not CRDs are skipped).
    #[arg(long = "crd", value_name = "PATH")]
    pub crds: Vec<PathBuf>,
    /// OpenAPI v3 documents with native kinds' schemas (what `kubectl get --raw
    /// /openapi/v3/apis/apps/v1` prints), files or folders; they win over the built-in ones.
    #[arg(long, value_name = "PATH")]
    pub schemas: Vec<PathBuf>,
    /// Where native kinds' schemas (Deployments, Services...) come from: `1.36`, built in;
    /// another release's published OpenAPI (its `api/openapi-spec/v3` folder); or `none`.
    /// Native kinds are checked against their schema only, not the apiserver's hand-written
    /// validation.
    #[arg(long, value_name = "VERSION|FOLDER", default_value = "1.36", value_parser = parse_kubernetes)]
    pub kubernetes_version: crate::validate::native::Kubernetes,
    /// What to print: compiler-style diagnostics (coloured on a terminal unless NO_COLOR is
    /// set), one JSON object per finding per line, a SARIF 2.1.0 log (GitHub code scanning),
    /// GitHub Actions annotations (workflow commands), or a JUnit XML report.
    #[arg(long, value_enum, default_value = "human")]
    pub output: crate::validate::report::Format,
    /// Validate as updates: documents whose apiVersion, kind, namespace and name match an old
    /// object in these files or folders run transition rules and ratcheting against it.
    #[arg(long, value_name = "PATH", conflicts_with = "old_ref")]
    pub old: Vec<PathBuf>,
    /// Validate as updates from the same files at this git revision (a commit, branch or tag).
    #[arg(long, value_name = "GIT_REF")]
    pub old_ref: Option<String>,
    /// Unknown and duplicate fields are errors (`kubectl --validate=strict`), not warnings.
    #[arg(long)]
    pub strict: bool,
    /// Kinds not to validate: `Kind` or `apiVersion/Kind`, comma-separated or repeated.
    #[arg(long, value_delimiter = ',', value_name = "KINDS")]
    pub skip_kinds: Vec<String>,
    /// Kinds that must not appear: every document of one is an error.
    #[arg(long, value_delimiter = ',', value_name = "KINDS")]
    pub reject_kinds: Vec<String>,
    /// A document of a kind no schema is given for is skipped, not an error.
    #[arg(long)]
    pub ignore_missing_schemas: bool,
    /// Warnings fail the run too (exit status 1).
    #[arg(long)]
    pub deny_warnings: bool,
    /// Threads to validate on (default: every core).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0, hide_default_value = true)]
    pub jobs: usize,
    /// Print one line of counts and time on standard error at the end.
    #[arg(long)]
    pub summary: bool,
    /// The largest file read (bytes, or with K, M or G: 32M); a larger one is refused.
    #[arg(long, value_name = "SIZE", default_value = "32M", value_parser = parse_size)]
    pub max_file_size: u64,
    /// The most a run reads, all files together (bytes, or with K, M or G); past it files are refused.
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_size)]
    pub max_input_size: u64,
    /// Paths not to read (repeatable): `*` and `?` within a name, `**` across folders; a
    /// pattern without `/` matches any file or folder name (`--exclude '*.tmpl.yaml'`,
    /// `--exclude charts`), one with `/` the whole path. A folder's kustomization files and
    /// Helm charts are never read (`--summary` counts them).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Manifest files or folders (`-` reads standard input).
    #[arg(required = true)]
    pub manifests: Vec<PathBuf>,
}

/// `target` (relative to the current folder) as a path relative to `base` (also relative
/// to the current folder): `runtime` seen from `build-examples/x` is `../../runtime`.
fn relative_to(target: &std::path::Path, base: &std::path::Path) -> PathBuf {
    let abs = |p: &std::path::Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
    let (target, base) = (abs(target), abs(base));
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

/// `--kubernetes-version`: the built-in release (`1.36`, `v1.36`, `1.36.3`), `none`, or a folder
/// of another release's OpenAPI v3 documents.
fn parse_kubernetes(text: &str) -> Result<crate::validate::native::Kubernetes, String> {
    use crate::validate::native::{BUILTIN_VERSION, Kubernetes};
    let release = text.strip_prefix('v').unwrap_or(text);
    if release == BUILTIN_VERSION || release.strip_prefix(BUILTIN_VERSION).is_some_and(|patch| patch.starts_with('.')) {
        return Ok(Kubernetes::Builtin);
    }
    if text == "none" {
        return Ok(Kubernetes::None);
    }
    let path = std::path::Path::new(text);
    if path.exists() {
        return Ok(Kubernetes::Spec(path.to_owned()));
    }
    Err(format!(
        "kubeskema carries Kubernetes {BUILTIN_VERSION}'s schemas only; for another release give its published \
         OpenAPI v3 folder (`api/openapi-spec/v3` at that release's tag of kubernetes/kubernetes), or `none`"
    ))
}

/// A size in bytes: a number, or one with a binary suffix `K`, `M` or `G` (`64M`).
fn parse_size(text: &str) -> Result<u64, String> {
    let (number, shift) = match text.strip_suffix(['K', 'k']) {
        Some(n) => (n, 10),
        None => match text.strip_suffix('M') {
            Some(n) => (n, 20),
            None => match text.strip_suffix('G') {
                Some(n) => (n, 30),
                None => (text, 0),
            },
        },
    };
    let n: u64 =
        number.parse().map_err(|_| format!("`{text}` is not a size: give bytes, or a number with K, M or G"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("`{text}` is too large"))
}

/// Prints one line to standard output; a closed pipe (`| head`) ends the program quietly
/// instead of panicking.
fn say(line: impl std::fmt::Display) {
    use std::io::Write;
    if writeln!(std::io::stdout().lock(), "{line}").is_err() {
        std::process::exit(0);
    }
}

/// `check --output`: `human` or `json`.
fn output_is_json(output: &str) -> Option<bool> {
    match output {
        "json" => Some(true),
        "human" => Some(false),
        other => {
            eprintln!("error: --output must be `human` or `json`, not `{other}`");
            None
        }
    }
}

/// Runs a command; returns the process exit status (0 ok, 1 problems found, 2 usage/IO).
pub fn run(args: Args) -> i32 {
    match args.command {
        Command::Generate {
            paths,
            out,
            crate_name,
            kubeskema_path,
            no_docs,
            skip_non_crds,
            kube,
            apply_configurations,
            hub,
            force,
        } => {
            let started = Instant::now();
            let mut hubs = std::collections::BTreeMap::new();
            for h in &hub {
                let Some((crd, version)) = h.split_once('=').filter(|(c, v)| !c.is_empty() && !v.is_empty()) else {
                    eprintln!(
                        "error: --hub {} is not CRD=VERSION\n  = help: name the CRD and the version, as --hub widgets.example.com=v1",
                        kubeskema::issue::printable(h)
                    );
                    return 2;
                };
                hubs.insert(crd.to_owned(), version.to_owned());
            }
            if let Some(problem) = crate::write::out_dir_problem(&out).filter(|_| !force) {
                eprintln!("error: {problem}\n  = help: give an empty or new folder, or --force to overwrite");
                return 2;
            }
            let generation = match pipeline::run(
                &paths,
                pipeline::Options {
                    docs: !no_docs,
                    skip_non_crds,
                    kube,
                    apply_configurations,
                    hubs,
                    ..pipeline::Options::default()
                },
            ) {
                Ok(g) => g,
                Err(diags) => {
                    eprintln!("{diags}");
                    return 2;
                }
            };
            for w in &generation.warnings {
                eprintln!("{w}");
            }
            let name = crate_name.unwrap_or_else(|| {
                out.file_name().map_or_else(|| "crds".into(), |n| crate::write::crate_name_from(&n.to_string_lossy()))
            });
            if let Some(problem) = crate::write::crate_name_problem(&name) {
                eprintln!("error: --crate-name {name:?} {problem} (Cargo's rule for package names)");
                return 2;
            }
            let dependency = match kubeskema_path {
                // Relative to the current folder as given, written relative to the crate, so
                // a crate checked in next to the runtime builds on any machine.
                Some(p) if p.is_relative() => Dependency::Path(relative_to(&p, &out)),
                Some(p) => Dependency::Path(p),
                None => Dependency::default_for_this_build(),
            };
            if let Err(e) = write_crate(&out, &name, &dependency, kube, &generation.modules) {
                eprintln!("{}: error: cannot write the crate: {e}", crate::diagnostic::shown(&out));
                return 2;
            }
            let lines: usize = generation.modules.iter().map(|m| m.code.lines().count()).sum();
            let types: usize = generation.modules.iter().map(|m| m.types).sum();
            eprintln!(
                "generated crate `{name}` in {}: {} CRDs, {} modules, {types} types, {lines} lines, in {:.2?}",
                crate::diagnostic::shown(&out),
                generation.crd_count,
                generation.modules.len(),
                started.elapsed()
            );
            let cel = crate::emit::CelCount::of(generation.modules.iter().map(|m| &m.cel));
            if cel.native + cel.interpreted.len() > 0 {
                eprintln!("{}", cel.summary());
                for (owner, rule, reason) in &cel.interpreted {
                    let (owner, rule, reason) = (printable(owner), printable(rule), printable(reason));
                    eprintln!("  interpreted: {owner}: `{rule}`: {reason}");
                }
            }
            0
        }
        Command::Validate(args) => validate(args),
        Command::Apply(args) => apply(args),
        Command::Compat(args) => compat(args),
        Command::Check { paths, output, skip_non_crds } => {
            let Some(json) = output_is_json(&output) else { return 2 };
            let diags = pipeline::check(&paths, skip_non_crds);
            for d in &diags {
                if json {
                    say(crate::validate::report::json_text(&d.to_json(), false));
                } else {
                    say(d);
                }
            }
            if diags.iter().any(|d| d.is_error() && matches!(d.code, Code::Io | Code::NotFound | Code::YamlSyntax)) {
                2
            } else if diags.iter().any(|d| d.is_error()) {
                1
            } else {
                0
            }
        }
    }
}

/// `cargo kubeskema compat`: the findings on standard output; 1 when something breaks under
/// the policy, 2 when the comparison could not run.
fn compat(args: CompatArgs) -> i32 {
    use crate::validate::compat::{Old, Policy, Request};
    let (old, new) = match (args.old_ref, args.paths.as_slice()) {
        (Some(rev), _) => (Old::GitRef(rev), args.paths.clone()),
        (None, [old, new]) => (Old::Files(vec![old.clone()]), vec![new.clone()]),
        (None, _) => {
            eprintln!("error: compat takes OLD and NEW (two paths), or NEW with --old-ref REF");
            return 2;
        }
    };
    if new.iter().any(|p| p.as_os_str() == "-") {
        eprintln!("error: compat reads files and folders, not standard input (-)");
        return 2;
    }
    let mut policy = match &args.policy {
        Some(path) => match Policy::read(path) {
            Ok(policy) => policy,
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        },
        None => Policy::default(),
    };
    for name in &args.allow {
        match kubeskema::crd::compat::Class::from_name(name) {
            Some(class) => policy.allow.push(class),
            None => {
                eprintln!("error: --allow: {}", crate::validate::compat::unknown_class(name));
                return 2;
            }
        }
    }
    policy.acknowledge.extend(args.acknowledge);
    let options = kubeskema::crd::compat::Options { stored_versions: args.stored_versions, verbose: args.verbose };
    let outcome = crate::validate::compat::run(&Request { old, new, options, policy, objects: args.objects });
    for d in &outcome.problems {
        eprintln!("{}", d.human());
    }
    if outcome.problems.iter().any(Diagnostic::is_error) {
        return 2;
    }
    match args.output.as_str() {
        "json" => outcome
            .records
            .iter()
            .for_each(|r| say(crate::validate::report::json_text(&crate::validate::compat::to_json(r), false))),
        "markdown" => say(crate::validate::compat::markdown(&outcome).trim_end()),
        "sarif" => say(crate::validate::report::json_text(&crate::validate::compat::sarif(&outcome), true)),
        "junit" => say(crate::validate::compat::junit(&outcome).trim_end()),
        _ => {
            for r in &outcome.records {
                say(r.diagnostic.human().trim_end());
            }
            let errors = outcome.records.iter().filter(|r| r.diagnostic.is_error()).count();
            let warnings = outcome.records.len() - errors;
            say(format!("compat: {} CRDs compared: {errors} breaking, {warnings} other", outcome.reports.len()));
        }
    }
    i32::from(outcome.records.iter().any(|r| r.diagnostic.is_error()))
}

/// `cargo kubeskema apply`: the stored object on standard output (exit status 0); conflicts
/// and refusals on standard error (1); input that cannot be used (2).
fn apply(args: ApplyArgs) -> i32 {
    let request = crate::apply::Request {
        crds: args.crds,
        applied: args.applied,
        live: args.live,
        manager: args.manager,
        force: args.force,
        now: args.now,
        subresource: match args.subresource.as_deref() {
            Some("status") => kubeskema::apply::Subresource::Status,
            _ => kubeskema::apply::Subresource::Main,
        },
    };
    match crate::apply::run(&request) {
        Ok(object) if args.output == "json" => {
            say(crate::validate::report::json_text(&object, true));
            0
        }
        Ok(object) => {
            say(kubeskema::schema::of_types::to_yaml(&object).trim_end());
            0
        }
        Err(diags) => {
            for d in &diags {
                eprintln!("{d}");
            }
            if diags.iter().any(|d| matches!(d.code, Code::ApplyConflict | Code::ApplyRefused)) { 1 } else { 2 }
        }
    }
}

/// `cargo kubeskema validate`: exit status 0 when nothing fails, 1 when an error (or, with
/// `--deny-warnings`, a warning) is found, 2 when the CRDs or a manifest cannot be used.
fn validate(args: ValidateArgs) -> i32 {
    use crate::diagnostic::Severity;
    use crate::validate::manifests::{OldObjects, Policy, Request};
    use crate::validate::report::Format;
    let stdin = |paths: &[PathBuf]| paths.iter().any(|p| p.as_os_str() == "-");
    if [stdin(&args.crds), stdin(&args.manifests), stdin(&args.old)].iter().filter(|&&s| s).count() > 1 {
        eprintln!(
            "error: standard input (-) can be read once: give the CRDs, the manifests or the old objects as -, not two of them"
        );
        return 2;
    }
    if args.old_ref.is_some() && stdin(&args.manifests) {
        eprintln!("error: --old-ref reads the manifests' files at a git revision: standard input (-) has none");
        return 2;
    }
    let old = match (args.old_ref, args.old.is_empty()) {
        (Some(rev), _) => OldObjects::GitRef(rev),
        (None, false) => OldObjects::Files(args.old),
        (None, true) => OldObjects::None,
    };
    let request = Request {
        crds: args.crds,
        schemas: args.schemas,
        kubernetes: args.kubernetes_version,
        manifests: args.manifests,
        exclude: args.exclude,
        old,
        policy: Policy {
            strict: args.strict,
            skip_kinds: args.skip_kinds,
            reject_kinds: args.reject_kinds,
            ignore_missing_schemas: args.ignore_missing_schemas,
        },
        jobs: args.jobs,
        limits: crate::validate::manifests::Limits { per_file: args.max_file_size, per_run: args.max_input_size },
    };
    let progress = crate::validate::report::Progress::on_terminal();
    let draw = |done, total| {
        if let Some(p) = &progress {
            p.update(done, total);
        }
    };
    // Colour on a terminal, unless NO_COLOR is set (https://no-color.org).
    let color = std::io::IsTerminal::is_terminal(&std::io::stdout())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    // Human and JSON findings are printed as each document is done (in input order) and not
    // kept; SARIF and JUnit are one document each, written at the end.
    let print = |validated: crate::validate::manifests::Validated| {
        if let Some(p) = progress.as_ref().filter(|_| !validated.findings.is_empty()) {
            p.finish();
        }
        for f in &validated.findings {
            match args.output {
                Format::Json => say(crate::validate::report::json_text(&f.to_json(), false)),
                Format::Github => say(f.github()),
                _ => say(format!("{}\n", f.human_in_color(color))),
            }
        }
    };
    let result = match args.output {
        Format::Human | Format::Json | Format::Github => {
            crate::validate::manifests::validate_each(&request, &draw, &mut { print })
        }
        Format::Sarif | Format::Junit => crate::validate::manifests::validate_with_progress(&request, &draw),
    };
    if let Some(p) = &progress {
        p.finish();
    }
    let report = match result {
        Ok(r) => r,
        Err(diags) => {
            eprintln!("{diags}");
            // A CI step uploads the document whatever the exit status: it is always written,
            // the CRD and file problems its results.
            let report = crate::validate::manifests::Report { files: diags.0, ..Default::default() };
            match args.output {
                Format::Sarif => {
                    say(crate::validate::report::json_text(&crate::validate::report::sarif(&report), true))
                }
                Format::Junit => say(crate::validate::report::junit(&report).trim_end()),
                Format::Github => report.files.iter().for_each(|d| say(d.github())),
                Format::Human | Format::Json => {}
            }
            return 2;
        }
    };
    match args.output {
        Format::Human | Format::Json => {
            // A manifest that could not be read is reported; the others were validated anyway.
            for d in &report.files {
                eprintln!("{d}");
            }
        }
        // The file problems are in the document; standard error repeats them for a reader of
        // the CI log.
        Format::Sarif => {
            report.files.iter().for_each(|d| eprintln!("{d}"));
            say(crate::validate::report::json_text(&crate::validate::report::sarif(&report), true));
        }
        Format::Junit => {
            report.files.iter().for_each(|d| eprintln!("{d}"));
            say(crate::validate::report::junit(&report).trim_end());
        }
        // The files that could not be read are annotations too.
        Format::Github => report.files.iter().for_each(|d| say(d.github())),
    }
    if args.output == Format::Human {
        eprintln!("{}", crate::validate::report::tally(&report));
    }
    if args.summary {
        eprintln!("{}", crate::validate::report::summary(&report));
    }
    // A document the reader stopped in is input that could not be read, as a file that is not
    // YAML is.
    if report.files.iter().any(Diagnostic::is_error) || report.counts.unreadable > 0 {
        2
    } else {
        i32::from(report.any(Severity::Error) || (args.deny_warnings && report.any(Severity::Warning)))
    }
}
