//! What a root type needs beside its `resource(...)` attribute: in kube-rs mode, the CRD's JSON
//! as a module constant (the derive writes the root's constants and impls from the attribute,
//! and `crd_json` names this constant).

use proc_macro2::TokenStream;
use quote::quote;

use super::tokens::{ident, string_literal};
use crate::model::{CrdJson, RootInfo};

/// The CRD's JSON, declared once per CRD in the module of its first generated version.
pub(super) fn emit_root(r: &RootInfo) -> TokenStream {
    match &r.crd_json {
        Some(CrdJson::Here { name, json }) => {
            let (name, json) = (ident(name), string_literal(json));
            quote! {
                #[doc(hidden)]
                pub const #name: &str = #json;
            }
        }
        Some(CrdJson::There { .. }) | None => TokenStream::new(),
    }
}
