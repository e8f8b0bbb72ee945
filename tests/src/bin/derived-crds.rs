//! Writes the CRD of each fixture resource type (`kubeskema_tests::derived`) as YAML, one file
//! per CRD: `cargo run -p kubeskema-tests --bin derived-crds -- OUT`. The apiserver's verdicts
//! on them are recorded by `fixtures/derived/record.py OUT`. Also writes
//! `pipelines.objects.json`: the data-carrying enums' sample objects, for the apiserver to judge.

fn main() {
    let Some(out) = std::env::args_os().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: derived-crds OUT (a folder; it is created)");
        std::process::exit(2);
    };
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("{}: {e}", out.display());
        std::process::exit(1);
    }
    for (file, crd) in kubeskema_tests::derived::crds() {
        let path = out.join(file);
        if let Err(e) = std::fs::write(&path, crd.to_yaml()) {
            eprintln!("{}: {e}", path.display());
            std::process::exit(1);
        }
        for note in crd.notes() {
            println!("{}: note: {note}", crd.name());
        }
        println!("{}", path.display());
    }
    // Objects for the apiserver to judge against the data-carrying enums' CRD.
    let objects: Vec<_> = kubeskema_tests::serde_shapes::samples()
        .iter()
        .map(|(spec, _)| kubeskema_tests::serde_shapes::object(spec))
        .collect();
    let path = out.join("pipelines.objects.json");
    if let Err(e) = std::fs::write(&path, serde_json::to_string_pretty(&objects).unwrap_or_default()) {
        eprintln!("{}: {e}", path.display());
        std::process::exit(1);
    }
    println!("{}", path.display());
}
