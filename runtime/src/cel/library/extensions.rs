//! cel-go's extensions as 1.36 enables them, as the `cel` crate implements them: strings (v2)
//! and lists (v3). `s.format(list)` is the format library's (`format.rs`), the sets extension
//! is `sets.rs`, two-variable comprehensions are the lowering's.

use crate::cel::vocabulary::function::{Charge, Cost, NOT_YET_NATIVE, NativeForm as N, Rows, Run};
use crate::cel::vocabulary::meter;

/// The types `sort`, `min`, `max` and `isSorted` order.
pub(super) const COMPARABLE: &[&str] = &["int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes"];

pub(super) fn functions(rows: &mut Rows) {
    let interpreted = N::Interpreted(NOT_YET_NATIVE);
    let mut add = |signature: &str, run: Run, cost: Cost, charge: Charge, native: N| {
        rows.add(signature, run, cost, charge, native);
    };
    use Charge::Call;
    use Run::Cel;
    // Strings (v2).
    add("string.charAt(int) -> string", Cel, Cost::Call, Call, interpreted);
    add("string.indexOf(string) -> int", Cel, Cost::ListScan, Call, interpreted);
    add("string.indexOf(string, int) -> int", Cel, Cost::ListScan, Call, interpreted);
    add("string.lastIndexOf(string) -> int", Cel, Cost::ListScan, Call, interpreted);
    add("string.lastIndexOf(string, int) -> int", Cel, Cost::ListScan, Call, interpreted);
    add("string.lowerAscii() -> string", Cel, Cost::CopyTarget, Call, N::StrMap("lower_ascii"));
    add("string.upperAscii() -> string", Cel, Cost::CopyTarget, Call, N::StrMap("upper_ascii"));
    // What `replace`, `join` and `flatten` build can be far larger than what they are given:
    // the meter's own implementations charge its size first.
    let replace = Run::Renamed(meter::REPLACE, meter::replace);
    add("string.replace(string, string) -> string", replace, Cost::Replace, Charge::ResultSize, interpreted);
    add("string.replace(string, string, int) -> string", replace, Cost::Replace, Charge::ResultSize, interpreted);
    add("string.split(string) -> list(string)", Cel, Cost::Split, Call, N::Split);
    add("string.split(string, int) -> list(string)", Cel, Cost::Split, Call, interpreted);
    add("string.substring(int) -> string", Cel, Cost::CopyTarget, Call, N::Substring);
    add("string.substring(int, int) -> string", Cel, Cost::CopyTarget, Call, N::Substring);
    add("string.trim() -> string", Cel, Cost::CopyTarget, Call, N::StrMap("trim"));
    let join = Run::Renamed(meter::JOIN, meter::join);
    add("list(string).join() -> string", join, Cost::Join, Charge::ResultSize, interpreted);
    add("list(string).join(string) -> string", join, Cost::Join, Charge::ResultSize, interpreted);
    add("strings.quote(string) -> string", Cel, Cost::Quote, Call, interpreted);
    // Lists (v3).
    add("list(A).slice(int, int) -> list(A)", Cel, Cost::Slice, Call, interpreted);
    let flatten = Run::Renamed(meter::FLATTEN, meter::flatten);
    add("list(list(A)).flatten() -> list(A)", flatten, Cost::Flatten, Charge::ResultSize, interpreted);
    add("list(dyn).flatten(int) -> list(dyn)", flatten, Cost::Flatten, Charge::ResultSize, interpreted);
    add("lists.range(int) -> list(int)", Cel, Cost::Range, Charge::RangeSize, interpreted);
    add("list(A).reverse() -> list(A)", Cel, Cost::Reverse, Call, interpreted);
    add("list(A).distinct() -> list(A)", Cel, Cost::Distinct, Call, interpreted);
    for t in COMPARABLE {
        add(&format!("list({t}).sort() -> list({t})"), Cel, Cost::Sort, Call, interpreted);
        let by_keys = format!("list(T).@sortByAssociatedKeys(list({t})) -> list(T)");
        add(&by_keys, Cel, Cost::SortByKeys, Call, interpreted);
    }
}
