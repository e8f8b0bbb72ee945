//! The Kubernetes IP and CIDR libraries (`AS pkg/cel/library/ip.go`, `cidr.go`) over Go's
//! `netip`: `ip`, `isIP`, `ip.isCanonical`, `family`, the `is*` address classes, `cidr`,
//! `isCIDR`, `containsIP`, `containsCIDR`, `masked`, `prefixLength`, `string`.
//! IPv4-mapped IPv6 addresses and zones are refused; a CIDR may have host bits set.

use std::net::IpAddr;

use cel::{ExecutionError, Value};

use crate::cel::vocabulary::args::{NO_SUCH_OVERLOAD, Outcome, error, opaque, opaque_arg, string_arg, value_fn};
use crate::cel::vocabulary::function::{Charge, Cost, LIBRARY_VALUE, NativeForm, Rows, Run};

const IP_TYPE: &str = "net.IP";
const CIDR_TYPE: &str = "net.CIDR";

/// An IP address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ip(IpAddr);

/// A prefix: an address and a length (host bits kept, as `netip.ParsePrefix` keeps them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    len: u8,
}

impl cel::objects::Opaque for Ip {
    fn runtime_type_name(&self) -> &str {
        IP_TYPE
    }
}

impl cel::objects::Opaque for Cidr {
    fn runtime_type_name(&self) -> &str {
        CIDR_TYPE
    }
}

/// The library's `parseIPAddr`: `netip.ParseAddr`, then no zone and no IPv4-mapped IPv6.
pub(crate) fn parse_ip(s: &str) -> Result<IpAddr, String> {
    let q = crate::report::issue::go_quote;
    match crate::go::net::parse_addr(s) {
        Err(e) => Err(format!("IP Address {} parse error during conversion from string: {e}", q(s))),
        Ok((_, Some(_))) => Err(format!("IP address {} with zone value is not allowed", q(s))),
        Ok((addr, None)) if is_4in6(addr) => Err(format!("IPv4-mapped IPv6 address {} is not allowed", q(s))),
        Ok((addr, None)) => Ok(addr),
    }
}

fn is_4in6(addr: IpAddr) -> bool {
    matches!(addr, IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some())
}

/// The library's `stringToCIDR` over `parseCIDR`: `netip.ParsePrefix`, then no IPv4-mapped
/// IPv6; a parse error is wrapped twice **\[quirk\]** (`network address parse error during
/// conversion from string: network address parse error during conversion from string:
/// netip.ParsePrefix("a,b"): no '/'`).
pub fn parse_cidr(s: &str) -> Result<Cidr, String> {
    const WRAP: &str = "network address parse error during conversion from string";
    match crate::go::net::parse_prefix(s) {
        Err(e) => Err(format!("{WRAP}: {WRAP}: {e}")),
        Ok((addr, _)) if is_4in6(addr) => {
            Err(format!("{WRAP}: IPv4-mapped IPv6 address {} is not allowed", crate::report::issue::go_quote(s)))
        }
        Ok((addr, len)) => Ok(Cidr { addr, len }),
    }
}

fn bits(addr: IpAddr) -> u8 {
    if addr.is_ipv4() { 32 } else { 128 }
}

fn as_u128(addr: IpAddr) -> u128 {
    match addr {
        IpAddr::V4(v4) => u128::from(u32::from(v4)),
        IpAddr::V6(v6) => u128::from(v6),
    }
}

fn masked(c: &Cidr) -> IpAddr {
    let width = bits(c.addr);
    let host_bits = u32::from(width - c.len);
    let mask = if host_bits >= 128 { 0 } else { !0u128 << host_bits };
    let n = as_u128(c.addr) & mask;
    match c.addr {
        IpAddr::V4(_) => IpAddr::V4((n as u32).into()),
        IpAddr::V6(_) => IpAddr::V6(n.into()),
    }
}

fn contains(c: &Cidr, addr: IpAddr) -> bool {
    if c.addr.is_ipv4() != addr.is_ipv4() {
        return false;
    }
    masked(&Cidr { addr, len: c.len }) == masked(c)
}

/// The two types are identifiers too (`type(x) == net.IP`), as the library declares them.
pub(super) const TYPES: &[&str] = &[IP_TYPE, CIDR_TYPE];

pub(super) fn functions(rows: &mut Rows) {
    let interpreted = NativeForm::Interpreted(LIBRARY_VALUE);
    let mut add = |signature: &str, f, cost| rows.add(signature, Run::Library(f), cost, Charge::Call, interpreted);
    add("ip(string) -> net.IP", value_fn!(ip), Cost::ParseArgument);
    let is_ip = Run::Library(value_fn!(is_ip));
    rows.add("isIP(string) -> bool", is_ip, Cost::ParseArgument, Charge::Call, NativeForm::StrTest("is_ip"));
    let mut add = |signature: &str, f, cost| rows.add(signature, Run::Library(f), cost, Charge::Call, interpreted);
    add("ip.isCanonical(string) -> bool", value_fn!(is_canonical), Cost::IpCanonical);
    add("net.IP.family() -> int", value_fn!(family), Cost::Call);
    add("net.IP.isUnspecified() -> bool", value_fn!(is_unspecified), Cost::Call);
    add("net.IP.isLoopback() -> bool", value_fn!(is_loopback), Cost::Call);
    add("net.IP.isLinkLocalMulticast() -> bool", value_fn!(is_link_local_multicast), Cost::Call);
    add("net.IP.isLinkLocalUnicast() -> bool", value_fn!(is_link_local_unicast), Cost::Call);
    add("net.IP.isGlobalUnicast() -> bool", value_fn!(is_global_unicast), Cost::Call);
    add("cidr(string) -> net.CIDR", value_fn!(cidr), Cost::ParseArgument);
    add("isCIDR(string) -> bool", value_fn!(is_cidr), Cost::ParseArgument);
    add("net.CIDR.containsIP(string) -> bool", value_fn!(contains_ip), Cost::ContainsAddress);
    add("net.CIDR.containsIP(net.IP) -> bool", value_fn!(contains_ip), Cost::ContainsAddress);
    add("net.CIDR.containsCIDR(string) -> bool", value_fn!(contains_cidr), Cost::ContainsAddress);
    add("net.CIDR.containsCIDR(net.CIDR) -> bool", value_fn!(contains_cidr), Cost::ContainsAddress);
    // A CIDR's address is a field.
    add("net.CIDR.ip() -> net.IP", value_fn!(cidr_ip), Cost::Call);
    add("net.CIDR.prefixLength() -> int", value_fn!(prefix_length), Cost::Call);
    add("net.CIDR.masked() -> net.CIDR", value_fn!(cidr_masked), Cost::Call);
    // Every `string(x)` runs as `@string` (`standard::GO_STRING`).
    for (signature, f) in
        [("string(net.IP) -> string", value_fn!(ip_string)), ("string(net.CIDR) -> string", value_fn!(cidr_string))]
    {
        rows.add(signature, Run::Renamed(super::standard::GO_STRING, f), Cost::Call, Charge::Call, interpreted);
    }
}

fn ip(args: &[Value]) -> Outcome {
    parse_ip(string_arg("ip", args, 0)?).map(|a| opaque(Ip(a))).map_err(|e| error("ip", e))
}

fn is_ip(args: &[Value]) -> Outcome {
    Ok(Value::Bool(parse_ip(string_arg("isIP", args, 0)?).is_ok()))
}

fn is_canonical(args: &[Value]) -> Outcome {
    let s = string_arg("ip.isCanonical", args, 0)?;
    let addr = parse_ip(s).map_err(|e| error("ip.isCanonical", e))?;
    Ok(Value::Bool(addr.to_string() == s))
}

fn this_ip(args: &[Value]) -> Result<IpAddr, ExecutionError> {
    Ok(opaque_arg::<Ip>("ip", args, 0)?.0)
}

fn ip_string(args: &[Value]) -> Outcome {
    Ok(Value::from(this_ip(args)?.to_string()))
}

fn family(args: &[Value]) -> Outcome {
    Ok(Value::Int(if this_ip(args)?.is_ipv4() { 4 } else { 6 }))
}

fn is_unspecified(args: &[Value]) -> Outcome {
    Ok(Value::Bool(this_ip(args)?.is_unspecified()))
}

fn is_loopback(args: &[Value]) -> Outcome {
    Ok(Value::Bool(this_ip(args)?.is_loopback()))
}

fn link_local_multicast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(v4) => v4.octets()[..3] == [224, 0, 0],
        IpAddr::V6(v6) => v6.segments()[0] & 0xff0f == 0xff02,
    }
}

fn link_local_unicast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(v4) => v4.is_link_local(),
        IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
    }
}

fn is_link_local_multicast(args: &[Value]) -> Outcome {
    Ok(Value::Bool(link_local_multicast(this_ip(args)?)))
}

fn is_link_local_unicast(args: &[Value]) -> Outcome {
    Ok(Value::Bool(link_local_unicast(this_ip(args)?)))
}

/// Go's `IsGlobalUnicast`: not unspecified, loopback, multicast, link-local or the IPv4
/// broadcast address (private addresses count).
fn is_global_unicast(args: &[Value]) -> Outcome {
    let addr = this_ip(args)?;
    let broadcast = matches!(addr, IpAddr::V4(v4) if v4.is_broadcast());
    Ok(Value::Bool(
        !(addr.is_unspecified() || addr.is_loopback() || addr.is_multicast() || link_local_unicast(addr) || broadcast),
    ))
}

fn cidr(args: &[Value]) -> Outcome {
    parse_cidr(string_arg("cidr", args, 0)?).map(opaque).map_err(|e| error("cidr", e))
}

fn is_cidr(args: &[Value]) -> Outcome {
    Ok(Value::Bool(parse_cidr(string_arg("isCIDR", args, 0)?).is_ok()))
}

fn this_cidr(args: &[Value]) -> Result<&Cidr, ExecutionError> {
    opaque_arg::<Cidr>("cidr", args, 0)
}

fn cidr_string(args: &[Value]) -> Outcome {
    let c = this_cidr(args)?;
    Ok(Value::from(format!("{}/{}", c.addr, c.len)))
}

fn contains_ip(args: &[Value]) -> Outcome {
    let c = this_cidr(args)?;
    let addr = match args.get(1) {
        // [quirk] `cidrContainsIPString` hands the parse's error to `cidrContainsIP`, which
        // finds no IP there: no such overload, not the parse's error.
        Some(Value::String(s)) => parse_ip(s).map_err(|_| error("containsIP", NO_SUCH_OVERLOAD))?,
        _ => opaque_arg::<Ip>("containsIP", args, 1)?.0,
    };
    Ok(Value::Bool(contains(c, addr)))
}

fn contains_cidr(args: &[Value]) -> Outcome {
    let c = this_cidr(args)?;
    let other = match args.get(1) {
        Some(Value::String(s)) => parse_cidr(s).map_err(|e| error("containsCIDR", e))?,
        _ => opaque_arg::<Cidr>("containsCIDR", args, 1)?.clone(),
    };
    Ok(Value::Bool(other.len >= c.len && contains(c, other.addr)))
}

fn cidr_ip(args: &[Value]) -> Outcome {
    Ok(opaque(Ip(this_cidr(args)?.addr)))
}

fn cidr_masked(args: &[Value]) -> Outcome {
    let c = this_cidr(args)?;
    Ok(opaque(Cidr { addr: masked(c), len: c.len }))
}

fn prefix_length(args: &[Value]) -> Outcome {
    Ok(Value::Int(i64::from(this_cidr(args)?.len)))
}
