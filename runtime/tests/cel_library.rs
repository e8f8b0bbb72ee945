//! Every function of the Kubernetes CEL libraries and the extensions the apiserver's
//! environment has, with the results and errors cel-go gives (semantics §9.2).
#![cfg(feature = "cel")]

use kubeskema::cel::{Value, eval, from_json};
use serde_json::json;

/// Evaluates `expr` with `self` = `null`-free empty object.
fn run(expr: &str) -> Result<Value, String> {
    eval(expr, from_json(&json!({})))
}

fn yes(expr: &str) {
    assert_eq!(run(expr), Ok(Value::Bool(true)), "{expr}");
}

fn fails(expr: &str, needle: &str) {
    match run(expr) {
        Err(e) => assert!(e.contains(needle), "{expr}: {e} does not contain {needle:?}"),
        Ok(v) => panic!("{expr}: expected an error, got {v:?}"),
    }
}

#[test]
fn lists_library() {
    yes("[1, 2, 2, 3].isSorted()");
    yes("![2, 1].isSorted()");
    yes("[].isSorted()");
    yes("['a', 'b'].isSorted()");
    yes("[1, 2, 3].sum() == 6");
    yes("[1.5, 2.5].sum() == 4.0");
    yes("[].sum() == 0");
    yes("[duration('1s'), duration('2s')].sum() == duration('3s')");
    yes("[3, 1, 2].min() == 1");
    yes("[3, 1, 2].max() == 3");
    fails("[].min()", "min called on empty list");
    fails("[].max()", "max called on empty list");
    yes("[1, 2, 1].indexOf(1) == 0");
    yes("[1, 2, 1].lastIndexOf(1) == 2");
    yes("[1, 2].indexOf(5) == -1");
    yes("[[1], [2]].indexOf([2]) == 1");
    yes("[{'a': 1}].indexOf({'a': 1}) == 0");
}

#[test]
fn lists_extension() {
    yes("[1, 2, 3, 4].slice(1, 3) == [2, 3]");
    yes("[[1], [2, 3]].flatten() == [1, 2, 3]");
    yes("[1, 1, 2].distinct() == [1, 2]");
    yes("[1, 2].reverse() == [2, 1]");
    yes("[3, 1, 2].sort() == [1, 2, 3]");
    yes("[{'n': 2}, {'n': 1}].sortBy(e, e.n)[0].n == 1");
    yes("lists.range(3) == [0, 1, 2]");
}

#[test]
fn regex_library() {
    yes("'abc 123'.find('[0-9]+') == '123'");
    yes("'abc'.find('[0-9]+') == ''");
    yes("'123 abc 456'.findAll('[0-9]+') == ['123', '456']");
    yes("'123 abc 456'.findAll('[0-9]+', 1) == ['123']");
    yes("'123 abc 456'.findAll('[0-9]+', 0) == []");
    yes("'123 abc 456'.findAll('[0-9]+', -1) == ['123', '456']");
    // Go's \\d is ASCII only.
    yes("'٣'.find('\\\\d') == ''");
    yes("'abc'.matches('^a')");
    // `matches` has Go's syntax and semantics too (member and global forms), through the same
    // compiled-once patterns: `\\d` ASCII only, `\\Q...\\E` literal, `\\z` end of text.
    yes("!'٣'.matches('\\\\d') && matches('a1', '\\\\d')");
    yes("'a.b'.matches('^\\\\Qa.b\\\\E$') && !'axb'.matches('^\\\\Qa.b\\\\E$')");
    yes("'ab'.matches('b\\\\z')");
    // A pattern that does not compile: Go's one-line message, not the regex crate's report.
    let error = eval("'x'.matches(self.pattern)", from_json(&json!({"pattern": "a("}))).unwrap_err();
    assert!(error.contains("error parsing regexp: ") && !error.contains('\n'), "{error}");
}

#[test]
fn url_library() {
    yes("isURL('https://example.com:80/path?query=val#fragment')");
    yes("isURL('/absolute-path')");
    yes("!isURL('example.com')");
    yes("!isURL('')");
    yes("!isURL('http://#%blah$#@')");
    yes("url('https://example.com:80/path').getScheme() == 'https'");
    yes("url('https://example.com:80/path').getHost() == 'example.com:80'");
    yes("url('https://example.com:80/path').getHostname() == 'example.com'");
    yes("url('https://[::1]:80/path').getHostname() == '::1'");
    yes("url('https://example.com:80/path').getPort() == '80'");
    yes("url('https://example.com/path').getPort() == ''");
    yes("url('https://example.com/with%20space').getEscapedPath() == '/with%20space'");
    yes("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}");
    fails("url('example.com')", "invalid URI for request");
}

#[test]
fn quantity_library() {
    yes("quantity('200M') == quantity('0.2G')");
    yes("isQuantity('1.5Gi')");
    yes("!isQuantity('200K')");
    fails("quantity('200K')", "unable to parse quantity's suffix");
    fails("quantity('abc')", "quantities must match the regular expression");
    yes("quantity('50k').isLessThan(quantity('100k'))");
    yes("quantity('1Mi').isGreaterThan(quantity('1M'))");
    yes("quantity('1Ki').compareTo(quantity('1024')) == 0");
    yes("quantity('2').add(quantity('3')) == quantity('5')");
    yes("quantity('2').add(3) == quantity('5')");
    yes("quantity('5').sub(quantity('3')) == quantity('2')");
    yes("quantity('5').sub(3) == quantity('2')");
    // `sign` is declared as a global function (its doc comment shows a member call, which
    // the checker refuses).
    yes("sign(quantity('-3')) == -1");
    yes("sign(quantity('0')) == 0");
    fails("quantity('-3').sign() == -1", "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'");
    yes("quantity('1.5').isInteger() == false");
    yes("quantity('1k').isInteger()");
    yes("quantity('1k').asInteger() == 1000");
    fails("quantity('1.5').asInteger()", "cannot convert value to integer");
    yes("quantity('500m').asApproximateFloat() == 0.5");
    yes("quantity('1e3') == quantity('1k')");
}

#[test]
fn ip_library() {
    yes("isIP('192.168.0.1')");
    yes("isIP('::1')");
    yes("!isIP('192.168.0.01')");
    yes("!isIP('::ffff:192.168.0.1')");
    yes("!isIP('fe80::1%eth0')");
    yes("ip('192.168.0.1').family() == 4");
    yes("ip('::1').family() == 6");
    yes("ip.isCanonical('2001:db8::1')");
    yes("!ip.isCanonical('2001:DB8::1')");
    yes("ip('0.0.0.0').isUnspecified()");
    yes("ip('127.0.0.1').isLoopback()");
    yes("ip('224.0.0.1').isLinkLocalMulticast()");
    yes("ip('ff02::1').isLinkLocalMulticast()");
    yes("ip('169.254.1.1').isLinkLocalUnicast()");
    yes("ip('fe80::1').isLinkLocalUnicast()");
    yes("ip('192.168.0.1').isGlobalUnicast()");
    yes("!ip('255.255.255.255').isGlobalUnicast()");
    yes("string(ip('192.168.0.1')) == '192.168.0.1'");
    yes("ip('10.0.0.1') == ip('10.0.0.1')");
    fails("ip('::ffff:1.2.3.4')", "IPv4-mapped IPv6 address");
}

#[test]
fn cidr_library() {
    yes("isCIDR('192.168.0.0/24')");
    yes("!isCIDR('192.168.0.0')");
    yes("!isCIDR('192.168.0.0/33')");
    // Host bits are allowed (netip.ParsePrefix), and `masked()` clears them.
    yes("isCIDR('192.168.0.1/24')");
    yes("cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')");
    yes("cidr('192.168.0.0/24').containsIP(ip('192.168.0.5'))");
    yes("cidr('192.168.0.0/24').containsIP('192.168.0.5')");
    yes("!cidr('192.168.0.0/24').containsIP('192.168.1.5')");
    yes("cidr('192.168.0.0/16').containsCIDR(cidr('192.168.1.0/24'))");
    yes("cidr('192.168.0.0/16').containsCIDR('192.168.1.0/24')");
    yes("!cidr('192.168.1.0/24').containsCIDR('192.168.0.0/16')");
    yes("cidr('192.168.0.0/24').ip() == ip('192.168.0.0')");
    yes("cidr('192.168.0.0/24').prefixLength() == 24");
    yes("string(cidr('::1/128')) == '::1/128'");
}

#[test]
fn format_library() {
    yes("format.dns1123Label().validate('my-name') == optional.none()");
    yes("format.dns1123Label().validate('My_Name').hasValue()");
    yes("format.dns1123Label().validate('-a').value()[0].startsWith('a lowercase RFC 1123 label')");
    yes("format.dns1123Subdomain().validate('example.com') == optional.none()");
    yes("format.dns1035Label().validate('1abc').hasValue()");
    yes("format.qualifiedName().validate('example.com/name') == optional.none()");
    yes("format.dns1123LabelPrefix().validate('my-') == optional.none()");
    yes("format.labelValue().validate('') == optional.none()");
    yes("format.uri().validate('https://example.com') == optional.none()");
    yes("format.uuid().validate('not-a-uuid').hasValue()");
    yes("format.byte().validate('aGVsbG8=') == optional.none()");
    yes("format.date().validate('2024-02-30').hasValue()");
    yes("format.datetime().validate('2024-02-29T10:00:00Z') == optional.none()");
    yes("format.named('dns1123Label').hasValue()");
    yes("!format.named('nope').hasValue()");
    yes("format.named('dns1123Label').value().validate('ok') == optional.none()");
}

#[test]
fn semver_library() {
    yes("isSemver('1.2.3')");
    yes("isSemver('1.2.3-alpha.1+build.5')");
    yes("!isSemver('v1.2.3')");
    yes("isSemver('v1.2', true)");
    yes("!isSemver('01.2.3')");
    yes("semver('1.2.3').major() == 1");
    yes("semver('1.2.3').minor() == 2");
    yes("semver('1.2.3').patch() == 3");
    yes("semver('1.2.3').isLessThan(semver('1.10.0'))");
    yes("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))");
    yes("semver('2.0.0').isGreaterThan(semver('1.9.9'))");
    yes("semver('1.2.3').compareTo(semver('1.2.3')) == 0");
    yes("semver('1.2.3+a') == semver('1.2.3+b')");
    yes("semver('v1', true) == semver('1.0.0')");
    fails("semver('x')", "No Major.Minor.Patch elements found");
}

#[test]
fn sets_library() {
    yes("sets.contains([1, 2, 3], [1, 2])");
    yes("!sets.contains([1, 2], [3])");
    yes("sets.contains([], [])");
    yes("sets.equivalent([1, 2], [2, 1, 1])");
    yes("!sets.equivalent([1], [1, 2])");
    yes("sets.intersects([1, 2], [2, 3])");
    yes("!sets.intersects([1], [2])");
}

#[test]
fn strings_extension_and_code_points() {
    yes("size('héllo') == 5");
    yes("'héllo'.charAt(1) == 'é'");
    yes("'hello'.indexOf('l') == 2");
    yes("'hello'.lastIndexOf('l') == 3");
    yes("'TacoCat'.lowerAscii() == 'tacocat'");
    yes("'TacoCat'.upperAscii() == 'TACOCAT'");
    yes("'aaa'.replace('a', 'b', 2) == 'bba'");
    yes("'a,b'.split(',') == ['a', 'b']");
    yes("'hello'.substring(1, 3) == 'el'");
    yes("'  x '.trim() == 'x'");
    yes("['a', 'b'].join('-') == 'a-b'");
    // A literal of mixed types does not check, except anywhere inside `format`'s call
    // (kube-apiserver 1.36.3 compiles `'%s and %d'.format(['a', 1])`).
    yes("'%s is %d'.format([dyn('x'), dyn(3)]) == 'x is 3'");
    yes("'%s is %d'.format(['x', 3]) == 'x is 3'");
    yes("'%s and %d'.format(['a', 1]).size() > 0");
    fails("size([1, 'a']) == 2 && 'x'.format([]) == 'x'", "expected type 'int' but found 'string'");
    yes("strings.quote('a\"b') == '\"a\\\\\"b\"'");
}

#[test]
fn standard_library_and_optionals() {
    yes("duration('1h30m') == duration('90m')");
    yes("timestamp('2024-01-01T00:00:00Z') < timestamp('2024-06-01T00:00:00Z')");
    yes("1 < 1.5");
    yes("{'a': 1}.?a.orValue(0) == 1");
    yes("{'a': 1}.?b.orValue(0) == 0");
    yes("[1, 2].exists_one(x, x == 2)");
    yes("int(duration('1s')) == 1000000000");
    // cel-go v0.26 declares `duration(int)` but converts no int: a literal is refused when the
    // rule compiles, anything else when it runs (kube-apiserver 1.36.3, class
    // `cel-environment-probe`).
    fails("duration(1000) == duration('1us')", "invalid duration argument");
    fails("duration(dyn(1000)) == duration('1us')", "type conversion error from 'int' to 'google.protobuf.Duration'");
    yes("timestamp(1) == timestamp('1970-01-01T00:00:01Z') && int(timestamp('1970-01-01T00:00:02Z')) == 2");
    yes("optional.of(2).optMap(x, x * 2).value() == 4 && !optional.none().optMap(x, x).hasValue()");
    yes("optional.of(2).optFlatMap(x, optional.of(x + 1)).value() == 3");
    yes("[1, 2].map(x, x * 2) == [2, 4]");
    yes("[1, 2, 3].filter(x, x > 1) == [2, 3]");
    fails("math.greatest(1, 5, 3) == 5", "undeclared reference to 'math'");
}

#[test]
fn rules_that_do_not_compile_say_why() {
    fails("self.a +", "compilation failed");
    fails("other.a == 1", "undeclared reference to 'other'");
    fails("self.noSuchFunction()", "undeclared reference to 'noSuchFunction'");
    fails("self.matches('[')", "invalid matches argument");
}

/// `x in [literals]` compares where the literals stand (the interpreter builds no list for
/// it): equality as a built list's, heterogeneous numbers included, and the operand's error
/// is the answer.
#[test]
fn in_a_list_of_literals() {
    // Each case also against the list built (`dyn([...])` is a call, not a list of literals).
    for (expr, expected) in [
        ("'b' in ['a', 'b']", true),
        ("'c' in ['a', 'b']", false),
        ("dyn(1) in [1.0, 2.0]", true),
        ("dyn(1u) in [3, 1]", true),
        ("dyn(2.0) in [1u, 2u]", true),
        ("dyn(1) in ['1', 'a']", false),
        ("1 in []", false),
    ] {
        let (operand, list) = expr.split_once(" in ").unwrap();
        assert_eq!(run(expr), Ok(Value::Bool(expected)), "{expr}");
        let built = format!("{operand} in dyn({list})");
        assert_eq!(run(&built), Ok(Value::Bool(expected)), "{built}");
    }
    fails("(1 / 0) in [1, 2]", "division by zero");
    fails("self.missing in ['a']", "no such key");
    yes("[1, 2].all(x, x in [1, 2, 3])");
}

/// A qualified name resolves from its innermost variable, field by field; comprehension
/// variables shadow outer ones of the same name and are bound afresh each iteration.
#[test]
fn names_resolve_from_the_innermost_variable() {
    assert_eq!(
        eval(
            "self.a.b == 1 && self.l.all(x, x.c == 2) && self.l.exists(self, self.c == 2)",
            from_json(&json!({"a": {"b": 1}, "l": [{"c": 2}]}))
        ),
        Ok(Value::Bool(true))
    );
    yes("[[1], [2]].all(x, x.all(x, x > 0))");
    yes("[1, 2, 3].map(x, [x].map(x, x * 2)[0]) == [2, 4, 6]");
    yes("[1, 2].exists_one(x, x == 2)");
    yes("has(self.a) == false");
    fails("nothere.a.b", "undeclared reference to 'nothere'");
    fails("self.a.b", "no such key");
}
