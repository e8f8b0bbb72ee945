//! Work spread over threads, the results in input order whatever order they finish in: what
//! `validate` reads, checks and validates, and the CRD files codegen reads.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The threads to use when `requested` are asked for: 0 takes every core.
pub fn threads(requested: usize) -> usize {
    match requested {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
}

/// `f` over every item on up to `jobs` threads (this one among them), the results in the
/// items' order. Items are taken one at a time, so one slow item does not hold up a share of
/// the others.
pub fn map<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { return done };
            done.push((i, f(item)));
        }
    };
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        // The main thread's stack size: a deeply nested document must not overflow a helper
        // thread's smaller default stack where it would not overflow the main thread's. A
        // helper that cannot be started leaves its share to the others.
        let helpers: Vec<_> = (1..jobs.min(items.len()))
            .filter_map(|_| std::thread::Builder::new().stack_size(8 << 20).spawn_scoped(scope, work).ok())
            .collect();
        let mut done = work();
        for helper in helpers {
            done.extend(helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        }
        done
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_input_order_on_any_number_of_threads() {
        let items: Vec<u64> = (0..200).collect();
        for jobs in [1, 2, 7, 500] {
            // Uneven work, so that items finish out of order.
            let out = map(&items, jobs, |&i| {
                std::thread::sleep(std::time::Duration::from_micros((i * 7919) % 50));
                i * 2
            });
            assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>(), "{jobs} threads");
        }
        assert!(map(&[] as &[u8], 4, |_| ()).is_empty());
    }
}
