//! Call ids for calls that arrive without one (§1): `call_` + 12 URL-safe base64 characters made
//! from 9 bytes of OS randomness.

use std::cell::RefCell;
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
