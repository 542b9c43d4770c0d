//! How the process allocates: one malloc arena, so that the informer cache's memory freed on
//! one thread is reused by the next allocation on another.

/// Makes glibc's malloc use a single arena for every thread, unless the user chose otherwise
/// (`MALLOC_ARENA_MAX`, or `glibc.malloc.arena_max` in `GLIBC_TUNABLES`). Call before starting any thread.
///
/// Why: objects are decoded on whichever runtime worker polls the reflector, so the cache is
/// spread over one arena per worker. In a relist, each new version is allocated in the arena of
/// the thread decoding it while the old one is freed into its own; glibc never hands one
/// arena's free memory to another, so the resident size grew by up to 30% in a relist of
/// 100,000 objects (benches/scale.rs), against 3% with one arena. The price, contention on the
/// arena's lock, did not show in `benches/replay_peer.rs` (BENCHMARKS.md).
///
/// Elsewhere (musl, macOS, Windows) the allocator is another, and this does nothing.
pub fn use_one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
        if !user_left_arenas_alone(std::env::var_os("MALLOC_ARENA_MAX").is_some(), &tunables) {
            return;
        }
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        /// glibc's malloc.h.
        const M_ARENA_MAX: i32 = -8;
        // SAFETY: mallopt only sets a tuning parameter of glibc's allocator; it takes no
        // pointers and is called before the process starts other threads.
        unsafe {
            mallopt(M_ARENA_MAX, 1);
        }
    }
}

#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
/// Whether the environment leaves the number of arenas to us: neither `MALLOC_ARENA_MAX` nor
/// a `glibc.malloc.arena_max` tunable (other tunables are about something else).
fn user_left_arenas_alone(malloc_arena_max: bool, glibc_tunables: &str) -> bool {
    !malloc_arena_max
        && !glibc_tunables
            .split(':')
            .any(|t| t.trim().starts_with("glibc.malloc.arena_max="))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_arena_setting_of_the_users_overrides_ours() {
        assert!(user_left_arenas_alone(false, ""));
        assert!(user_left_arenas_alone(false, "glibc.malloc.tcache_count=0"));
        assert!(!user_left_arenas_alone(true, ""));
        assert!(!user_left_arenas_alone(
            false,
            "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=4"
        ));
    }
}
