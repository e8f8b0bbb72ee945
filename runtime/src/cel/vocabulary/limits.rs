//! The apiserver's limits on CEL, in one place: what one evaluation, one object, one rule and one
//! CRD may cost, the sizes that bound what a schema leaves unbounded, and how deep and long a
//! rule may be. The estimator (`cost`), the meter (`meter`), the parser's guards (`depth`) and
//! the code compiled to Rust all read them here.

/// The most one evaluation may cost (`PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// The most all rules of one object may cost together (`RuntimeCELCostBudget`).
pub const RUNTIME_BUDGET: u64 = 10_000_000;
/// The most one rule's estimate may be (`StaticEstimatedCostLimit`).
pub const STATIC_RULE_LIMIT: u64 = 10_000_000;
/// The most the estimates of one schema's rules may sum to (`StaticEstimatedCRDCostLimit`).
pub const STATIC_CRD_LIMIT: u64 = 100_000_000;
/// The request size that bounds unbounded strings, lists and maps (`MaxRequestSizeBytes`).
pub const MAX_REQUEST_BYTES: u64 = 3 * 1024 * 1024;
/// The longest evaluated messageExpression.
pub const MAX_MESSAGE_EXPRESSION_BYTES: usize = 5120;

/// cel-go's parser recursion limit, which also bounds the depth of the expression tree.
pub const MAX_DEPTH: usize = 250;
/// cel-go's limit on the length of an expression, in code points.
pub const MAX_CODE_POINTS: usize = 100_000;

/// A tenth of a unit per byte or element traversed, rounded up (cel-go's traversal factor):
/// what the meter charges.
pub(crate) fn traversal(n: u64) -> u64 {
    n.div_ceil(10)
}

/// The apiserver's words for a cost over its limit (`getCostErrorMessage`).
pub fn over_budget(what: &str, cost: u64, limit: u64) -> String {
    format!(
        "{what} exceeds budget by factor of {} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
        factor(cost, limit)
    )
}

/// `more than 100x`, six decimals below 1.5, one decimal otherwise.
fn factor(cost: u64, limit: u64) -> String {
    let f = cost as f64 / limit as f64;
    if f > 100.0 {
        "more than 100x".into()
    } else if f < 1.5 {
        format!("{f:.6}x")
    } else {
        format!("{f:.1}x")
    }
}
