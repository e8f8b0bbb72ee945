//! Reading: the validating read of typed values (`decode`: any serde deserializer, every problem
//! recorded as an issue, as the apiserver's decoder reports it), and YAML and JSON documents with
//! a position for every node (`yaml`, feature `yaml`), read as kubectl reads them.

pub mod decode;
#[cfg(feature = "yaml")]
pub mod yaml;
