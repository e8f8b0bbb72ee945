//! Each CEL rule is compiled once per generation (the house issue): the CRD checks compile it
//! with the apiserver's scope, and the emitter writes Rust from those trees instead of
//! compiling the rule again. Counted over the golden fixtures: one compilation per rule and
//! per messageExpression of each version's schema.
//!
//! Its own test binary: the count is process-wide, so no other test may compile meanwhile.

use kubeskema::cel::compile_count;
use kubeskema::schema::Schema;
use kubeskema_codegen::__internal::pipeline::{self, Options};

/// The rules and messageExpressions under `s`.
fn expressions(s: &Schema) -> usize {
    let own: usize = s.validations.iter().map(|r| 1 + usize::from(r.message_expression.is_some())).sum();
    let children = s.properties.values().chain(s.items.as_deref()).chain(s.additional_properties_schema());
    own + children.map(expressions).sum::<usize>()
}

#[test]
fn each_rule_is_compiled_once_per_generation() {
    let mut total = 0;
    for fixture in kubeskema_tests::golden_fixtures() {
        let text = std::fs::read_to_string(&fixture).unwrap();
        let mut expected = 0;
        for document in kubeskema::yaml::parse_documents(&text).expect("the fixture is YAML") {
            let (crd, errors) = kubeskema::crd::Crd::parse(&document.value);
            assert!(errors.is_empty(), "{}: {errors:?}", fixture.display());
            expected += crd.versions.iter().filter_map(|v| v.schema.as_ref()).map(expressions).sum::<usize>();
        }
        for interpretable in [false, true] {
            let before = compile_count();
            pipeline::run(std::slice::from_ref(&fixture), Options { interpretable, ..Options::default() })
                .unwrap_or_else(|d| panic!("{} does not generate:\n{d}", fixture.display()));
            let compiled = compile_count() - before;
            assert_eq!(compiled, expected, "{}: expressions compiled while generating", fixture.display());
        }
        total += expected;
    }
    // The fixtures hold rules and messageExpressions enough for the count to mean something.
    assert!(total >= 40, "{total}");
}
