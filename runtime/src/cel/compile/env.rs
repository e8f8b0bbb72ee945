//! The interpreter's environment: cel-go's standard library, the strings (v2) and lists (v3)
//! extensions, the Kubernetes libraries, and the functions the lowered tree calls.

use std::sync::{Arc, LazyLock};

use cel::Env;

use crate::cel::library;
use crate::cel::vocabulary::meter;

/// The environment every rule compiles and runs in: the standard library, the strings
/// (v2) and lists (v3) extensions, and the Kubernetes libraries.
pub fn env() -> &'static Arc<Env> {
    static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| {
        let mut env = Env::stdlib();
        // cel-go keeps the last entry of a map literal with a repeated key.
        env.set_error_on_duplicate_map_keys(false);
        env.add_extension(cel::extensions::strings).expect("invariant: the strings extension declares once");
        env.add_extension(cel::extensions::lists).expect("invariant: the lists extension declares once");
        library::register(&mut env).expect("invariant: the function table declares each overload once");
        // The meter's `@charge(k, e)`, on every rule and every loop step, evaluated by the
        // interpreter as an operator rather than called as a function.
        env.set_charge(meter::CHARGE, meter::charge);
        Arc::new(env)
    });
    &ENV
}
