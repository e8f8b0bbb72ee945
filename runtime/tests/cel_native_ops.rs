//! The functions rules compiled to Rust call (`kubeskema::cel::native`) give what the
//! interpreter gives for the same CEL, on any input: integer arithmetic at the int64 bounds,
//! code-point sizes, substrings, case, splitting, trimming and conversions of any string.
#![cfg(feature = "cel")]

use std::borrow::Cow;

use kubeskema::cel::native::{self, Error};
use kubeskema::cel::{Value, eval, from_json};
use proptest::prelude::*;
use serde_json::json;

/// The interpreter's answer for `source` over `self`, as the native result is compared.
fn interpreted(source: &str, this: serde_json::Value) -> Result<Value, String> {
    eval(source, from_json(&this))
}

fn same<T: Into<Value>>(native: Result<T, Error>, interpreted: Result<Value, String>) -> Result<(), TestCaseError> {
    let native = native.map(Into::into).map_err(|e| e.text());
    prop_assert_eq!(native, interpreted);
    Ok(())
}

fn ints() -> impl Strategy<Value = i64> {
    prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0), Just(-1), Just(1), any::<i64>(), -100i64..100]
}

fn strings() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), "[a-zA-Z0-9 -]{0,12}", "\\PC{0,12}", "[ \t\n\u{a0}\u{2003}x-]{0,8}"]
}

proptest! {
    #[test]
    fn integer_arithmetic(a in ints(), b in ints()) {
        let this = json!({"a": a, "b": b});
        same(native::add_int(a, b), interpreted("self.a + self.b", this.clone()))?;
        same(native::sub_int(a, b), interpreted("self.a - self.b", this.clone()))?;
        same(native::mul_int(a, b), interpreted("self.a * self.b", this.clone()))?;
        same(native::div_int(a, b), interpreted("self.a / self.b", this.clone()))?;
        same(native::rem_int(a, b), interpreted("self.a % self.b", this.clone()))?;
        same(native::neg_int(a), interpreted("-self.a", this))?;
    }

    #[test]
    fn strings_by_code_point(s in strings(), start in -2i64..14, end in -2i64..14) {
        let this = json!({"s": s, "i": start, "j": end});
        same(Ok(native::size_str(&s)), interpreted("self.s.size()", this.clone()))?;
        same(native::substring(Cow::Borrowed(&s), start, None).map(Cow::into_owned), interpreted("self.s.substring(self.i)", this.clone()))?;
        same(native::substring(Cow::Borrowed(&s), start, Some(end)).map(Cow::into_owned), interpreted("self.s.substring(self.i, self.j)", this.clone()))?;
        same(Ok(native::lower_ascii(Cow::Borrowed(&s)).into_owned()), interpreted("self.s.lowerAscii()", this.clone()))?;
        same(Ok(native::upper_ascii(Cow::Borrowed(&s)).into_owned()), interpreted("self.s.upperAscii()", this.clone()))?;
        same(Ok(native::trim(Cow::Borrowed(&s)).into_owned()), interpreted("self.s.trim()", this))?;
    }

    #[test]
    fn splits(s in strings(), sep in prop_oneof![Just(String::new()), Just("-".to_owned()), Just(" ".to_owned()), "[a-z]{1,2}"]) {
        let this = json!({"s": s, "sep": sep});
        let parts: Vec<Value> = native::split(Cow::Borrowed(&s), &sep).into_iter().map(|p| Value::from(p.into_owned())).collect();
        same(Ok(Value::List(parts.into())), interpreted("self.s.split(self.sep)", this))?;
    }

    #[test]
    fn conversions(s in prop_oneof![strings(), "[+-]?[0-9]{1,20}", "[0-9.]{1,4}(h|m|s|ms|us|ns){1,2}", Just("1hxyz".to_owned())]) {
        let this = json!({"s": s});
        same(native::string_to_int(&s), interpreted("int(self.s)", this.clone()))?;
        let duration = native::string_to_duration(&s).map(|ns| Value::Duration(chrono::Duration::nanoseconds(ns)));
        same(duration, interpreted("duration(self.s)", this))?;
    }
}
