//! Call ids for calls that arrive without one (docs/parsing.md): `call_` + 12 URL-safe base64
//! characters made from 9 bytes of OS randomness, or, for batch work that asks for ids it can
//! rerun and diff, `call_{line}_{index}` ([`with_line_ids`]).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

const ID_BYTES: usize = 9;
/// OS randomness is fetched for this many ids at a time: one `getrandom` call per 128 ids.
const BUFFER_IDS: usize = 128;

/// Bumped in every forked child, so a child never reuses bytes its parent buffered.
static FORK_GENERATION: AtomicU64 = AtomicU64::new(0);
static REGISTER_FORK_HANDLER: Once = Once::new();

/// Has `FORK_GENERATION` bumped in every child forked from now on.
#[cfg(unix)]
fn watch_forks() {
    extern "C" fn on_fork_child() {
        FORK_GENERATION.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: registers a handler that only touches an atomic.
    unsafe {
        libc::pthread_atfork(None, None, Some(on_fork_child));
    }
}

/// Targets without `fork` (Windows, WASI) cannot copy a process's buffered bytes into a child:
/// the generation stays 0.
#[cfg(not(unix))]
fn watch_forks() {}

struct RandomPool {
    bytes: [u8; ID_BYTES * BUFFER_IDS],
    used: usize,
    generation: u64,
}

thread_local! {
    static POOL: RefCell<RandomPool> = const { RefCell::new(RandomPool {
        bytes: [0; ID_BYTES * BUFFER_IDS],
        used: ID_BYTES * BUFFER_IDS,
        generation: u64::MAX,
    }) };
}

thread_local! {
    /// The line whose calls this thread is reading, inside [`with_line_ids`].
    static LINE: Cell<Option<u64>> = const { Cell::new(None) };
}

/// Runs `f` (the reading of one line of a batch, which happens on one thread) with the ids it
/// generates derived from `line` ([`generate_id_for`]); with `None`, ids stay random.
///
/// A scope rather than a parameter: ids are generated deep inside the call rules, which would
/// otherwise all carry an id source for the batch's sake.
pub fn with_line_ids<R>(line: Option<u64>, f: impl FnOnce() -> R) -> R {
    /// Puts the previous line back, also when `f` panics (a thread's later ids stay random).
    struct Restore(Option<u64>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LINE.set(self.0);
        }
    }
    let _restore = Restore(LINE.replace(line));
    f()
}

/// The id generated for call `index` of a response (its position among the response's calls,
/// as `InvalidToolCall.index` counts): `call_{line}_{index}` inside [`with_line_ids`], else
/// [`generate_id`].
pub fn generate_id_for(index: usize) -> String {
    match LINE.get() {
        Some(line) => format!("call_{line}_{index}"),
        None => generate_id(),
    }
}

/// A fresh id matching `^call_[A-Za-z0-9_-]{12}$`.
pub fn generate_id() -> String {
    REGISTER_FORK_HANDLER.call_once(watch_forks);
    let mut raw = [0u8; ID_BYTES];
    POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        let generation = FORK_GENERATION.load(Ordering::Relaxed);
        if pool.used == pool.bytes.len() || pool.generation != generation {
            // Without OS randomness there is no safe id to give; this has never been seen to
            // fail on a supported platform.
            getrandom::fill(&mut pool.bytes).expect("the OS random source failed");
            pool.used = 0;
            pool.generation = generation;
        }
        raw.copy_from_slice(&pool.bytes[pool.used..pool.used + ID_BYTES]);
        pool.used += ID_BYTES;
    });
    url_safe_id(&raw)
}

const URL_SAFE_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `call_` and the URL-safe base64 of `raw` (9 bytes: 12 characters, no padding). Written out
/// rather than through a base64 engine: this runs once per generated id, on the hot path.
fn url_safe_id(raw: &[u8; ID_BYTES]) -> String {
    let mut id = String::with_capacity(5 + ID_BYTES / 3 * 4);
    id.push_str("call_");
    for group in raw.chunks_exact(3) {
        let bits = u32::from(group[0]) << 16 | u32::from(group[1]) << 8 | u32::from(group[2]);
        for shift in [18, 12, 6, 0] {
            id.push(char::from(URL_SAFE_ALPHABET[(bits >> shift) as usize & 63]));
        }
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_url_safe_base64_of_the_random_bytes() {
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine;
        for raw in [[0u8; 9], [255; 9], [0, 16, 131, 16, 81, 135, 32, 146, 139]] {
            assert_eq!(
                url_safe_id(&raw),
                format!("call_{}", URL_SAFE_NO_PAD.encode(raw))
            );
        }
    }

    #[test]
    fn line_ids_are_derived_from_the_line_and_index_inside_their_scope_only() {
        assert_eq!(with_line_ids(Some(7), || generate_id_for(2)), "call_7_2");
        let outer = with_line_ids(Some(1), || {
            let inner = with_line_ids(None, || generate_id_for(0));
            (inner, generate_id_for(3))
        });
        assert!(
            outer.0.len() == 17 && outer.0.starts_with("call_"),
            "{}",
            outer.0
        );
        assert_eq!(outer.1, "call_1_3");
        let panicked = std::panic::catch_unwind(|| with_line_ids(Some(9), || panic!("boom")));
        assert!(panicked.is_err());
        assert_eq!(
            generate_id_for(0).len(),
            17,
            "the scope ends with a panic too"
        );
    }

    #[test]
    fn ids_have_the_contract_shape_and_do_not_repeat() {
        let ids: HashSet<String> = (0..10_000).map(|_| generate_id()).collect();
        assert_eq!(ids.len(), 10_000);
        for id in &ids {
            assert_eq!(id.len(), 17);
            assert!(id.starts_with("call_"));
            assert!(id[5..]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'));
        }
    }
}
