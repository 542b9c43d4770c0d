//! How the process allocates: one malloc arena, so that the informer cache's memory freed on
//! one thread is reused by the next allocation on another.

/// Makes glibc's malloc use a single arena for every thread, unless the user chose otherwise
/// (`MALLOC_ARENA_MAX`, `GLIBC_TUNABLES`). Call before starting any thread.
///
/// Why: objects are decoded on whichever runtime worker polls the reflector, so the cache is
/// spread over one arena per worker. In a relist, each new version is allocated in the arena of
/// the thread decoding it while the old one is freed into its own; glibc never hands one
/// arena's free memory to another, so the resident size grew by up to 30% in a relist of
/// 100,000 objects (benches/scale.rs), against 3% with one arena. The price, contention on the
/// arena's lock, did not show in `benches/replay_peer.rs` (BENCHMARKS.md).
pub fn use_one_malloc_arena() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_some()
        || std::env::var_os("GLIBC_TUNABLES").is_some()
    {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
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
