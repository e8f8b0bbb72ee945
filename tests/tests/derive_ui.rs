//! Mistakes in `#[kubeskema(...)]` attributes are compile errors pointing at the mistake.
//! Bless changed messages with `TRYBUILD=overwrite cargo test -p kubeskema-tests --test derive_ui`.

#[test]
fn attribute_mistakes_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
