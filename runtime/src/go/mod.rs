//! Ports of the Go standard-library parsers whose answers the apiserver's checks depend on,
//! so that every subsystem (formats, CEL values, the CEL libraries) asks one implementation:
//! `time.ParseDuration` and strfmt's `ParseDuration` ([`duration`]), `url.ParseRequestURI`
//! ([`url`]), `net/mail.ParseAddress` ([`mail`]), and `net.ParseIP`, k8s.io/utils'
//! `ParseIPSloppy`/`ParseCIDRSloppy` and `net.ParseMAC` ([`net`]), and `regexp/syntax.Parse`'s
//! errors ([`regexp`]), and RFC 3339 times as Unix seconds ([`time`]).
//!
//! Errors are in Go's words where a message reaches a user (CEL conversion errors).

pub mod duration;
pub mod mail;
pub mod net;
/// Kept with the attribute vocabulary, which the derive reads it through.
pub use kubeskema_attributes::go_regexp as regexp;
pub mod time;
pub mod url;
