//! One row per overload: every function a rule can call, and every function the lowering
//! writes into a rule, declared once with everything each stage needs of it. The checker
//! reads the signature ([`crate::cel::front::functions`]), the interpreter's environment
//! registers the implementation ([`crate::cel::library::register`]), the estimator applies the static cost
//! rule ([`crate::cel::cost`]), the meter's rewrite reads the run-time charge
//! ([`crate::cel::compile::instrument`]), and code generation asks for the native form
//! ([`crate::cel::library::native_form`]; the derive reads the same forms by call shape from
//! `kubeskema_attributes::native::CALLS`). Adding a function is adding its row, in the file of
//! its library (and, if it runs natively, its shape to `CALLS`: a test says so).

use cel::common::functions::Function as Implementation;

/// One overload.
pub(crate) struct Function {
    /// As cel-go prints it: `size(string) -> int` is a global function, `string.size() -> int`
    /// a member of `string`; one upper-case letter is a type parameter.
    pub signature: String,
    pub run: Run,
    pub cost: Cost,
    pub charge: Charge,
    pub native: NativeForm,
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.signature)
    }
}

/// How the interpreter runs an overload.
#[derive(Clone, Copy)]
pub(crate) enum Run {
    /// The `cel` crate's standard library or extensions implement it under its own name.
    Cel,
    /// This implementation, registered under the overload's name.
    Library(Implementation),
    /// The lowering renames the call ([`crate::cel::library::lower`]), as the `cel` crate's own does otherwise
    /// (or, for the functions whose result is charged by its size, charges nothing), and this
    /// implementation is registered under the new name.
    Renamed(&'static str, Implementation),
}

/// The static cost rule (cel-go's `functionCost`, the extensions' and the Kubernetes
/// libraries' estimators): what [`crate::cel::cost`] applies to a call of the overload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Cost {
    /// One, plus the arguments' (cel-go's default).
    Call,
    /// `dyn(x)`: one, and `x`'s sizes.
    Transparent,
    /// `list[i]` and `map[k]`: a call, and the operand's items or values continue its path.
    IndexList,
    IndexMap,
    /// `&&`, `||`: at least the left operand, at most both.
    ShortCircuit,
    /// `c ? a : b`: the condition and the dearer branch.
    Conditional,
    /// `+` of strings or bytes: the result traversed.
    ConcatCopy,
    /// `+` of lists: a call.
    ConcatList,
    /// `==`: the Kubernetes types' own comparisons, else [`Cost::CompareTraversing`].
    Equality,
    /// Comparisons that traverse the smaller operand (strings, bytes, `!=`).
    CompareTraversing,
    /// `s.format(list)`: the format string traversed.
    Format,
    /// `bytes(string)`, `string(bytes)`, `strings.quote(s)`: the argument traversed.
    ToBytes,
    FromBytes,
    Quote,
    /// `startsWith`, `endsWith`: the argument traversed.
    Affix,
    /// `x in list`: linear in the list.
    InList,
    /// `s.matches(re)`: subject times pattern.
    Matches,
    /// `s.contains(t)`: subject times `t`.
    Contains,
    /// The sets extension: both lists' sizes multiplied, by this factor.
    Sets(f64),
    /// The lists extension.
    Slice,
    Flatten,
    Range,
    Reverse,
    Distinct,
    Sort,
    SortByKeys,
    /// `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`: each element compared.
    ListScan,
    /// `url(s)`: `s` traversed, a result its size.
    ParseUrl,
    /// `lowerAscii`, `upperAscii`, `substring`, `trim`: the target traversed, a result its size.
    CopyTarget,
    Replace,
    Split,
    Join,
    /// `find`, `findAll`: a regular expression over the target.
    Find,
    /// A string parsed into a Kubernetes type (`ip`, `cidr`, `quantity`, `semver`, `is*`).
    ParseArgument,
    /// `ip.isCanonical(s)`: parsed, then compared with the text.
    IpCanonical,
    /// `containsIP`, `containsCIDR`: addresses compared (and parsed first from a string).
    ContainsAddress,
    /// `format.<name>().validate(s)`: the name's pattern over `s`.
    ValidateFormat,
}

/// cel-go's unit cost of creating a list (`common/cost.go` `ListCreateBaseCost`): estimated by
/// `cost` for a list literal, charged by the meter where a function builds one (`lists.range`).
pub(crate) const LIST_CREATE: u64 = 10;

/// What a call charges the run-time meter ([`crate::cel::vocabulary::meter`]), through the
/// calls [`crate::cel::compile::instrument`] writes around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Charge {
    /// One unit, with its operands (the expression's or the loop's spine).
    Call,
    /// Only its first operand: the others may not be evaluated (`&&`, `||`, `?:`), or the
    /// call is the apiserver's own and not the rule's (`@int_data`).
    FirstOperand,
    /// One unit, and the implementation charges cel-go's regular-expression cost itself.
    Regex,
    /// One unit, and the implementation ([`Run::Renamed`]) charges the size of its result
    /// before it builds it.
    ResultSize,
    /// `lists.range(n)`: `n` charged as the size of the list before it is built (`@range`).
    RangeSize,
    /// `+`: the sizes of what it joins (`@sized`).
    Sized,
    /// The meter's own calls.
    Meter,
}

/// How generated code runs an overload natively, or why it stays interpreted: shared with
/// the derive's compiler, which reads the forms by call shape
/// ([`kubeskema_attributes::native::CALLS`], held equal to the rows by a test).
pub use kubeskema_attributes::native::NativeForm;

/// The rows of a library, in the order its file declares them.
#[derive(Default)]
pub(crate) struct Rows(pub Vec<Function>);

impl Rows {
    pub fn add(&mut self, signature: impl Into<String>, run: Run, cost: Cost, charge: Charge, native: NativeForm) {
        self.0.push(Function { signature: signature.into(), run, cost, charge, native });
    }
}

/// Why the standard library's rarer overloads are interpreted.
pub(crate) const NO_RUST_TYPE: &str =
    "its operands have no native Rust representation (uint, double arithmetic, bytes, timestamps, types)";
/// Why a Kubernetes library's functions are interpreted.
pub(crate) const LIBRARY_VALUE: &str =
    "its library's values (quantities, IPs, CIDRs, semvers, named formats) are the interpreter's";
/// Why an extension's functions are interpreted.
pub(crate) const NOT_YET_NATIVE: &str = "no native helper yet: rare in the corpus";

impl Function {
    /// The name the lowered tree calls, whether it is a member, and its arity besides the
    /// target.
    pub fn shape(&self) -> (&str, bool, usize) {
        let (name, member, arity) = signature_shape(&self.signature);
        match self.run {
            Run::Renamed(to, _) => (to, member, arity),
            _ => (name, member, arity),
        }
    }
}

/// The namespaces of global functions (`optional.none()`, `sets.contains(a, b)`).
pub(crate) const NAMESPACES: &[&str] = &["optional", "sets", "lists", "strings", "format", "ip", "cel"];

/// `(name, member, arity)` of a signature: `list(A).indexOf(A) -> int` is `("indexOf", true, 1)`.
pub(crate) fn signature_shape(signature: &str) -> (&str, bool, usize) {
    let call = signature.rsplit_once(" -> ").map_or(signature, |(call, _)| call);
    let open = matching_open(call);
    let (head, args) = (&call[..open], &call[open + 1..call.len() - 1]);
    let arity = if args.trim().is_empty() { 0 } else { crate::cel::vocabulary::types::split_params(args).len() };
    match head.rsplit_once('.') {
        Some((target, name)) if !NAMESPACES.contains(&target) => (name, true, arity),
        _ => (head, false, arity),
    }
}

/// The index of the `(` matching the call's last `)`.
pub(crate) fn matching_open(call: &str) -> usize {
    let mut depth = 0;
    for (i, c) in call.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    panic!("invariant: the table's signatures are balanced: {call}")
}
