//! The cache of encoded tiles: least recently used first out, bounded by the bytes it holds
//! (`--cache-mb`), shared by every request behind one lock (a lookup is a hash probe; tiles
//! are made outside the lock).
//!
//! Tests: this file's unit tests.

use crate::render::pyramid::zoom::{Pyramid, TileRect, TileStyle};
use axum::body::Bytes;
use lru::LruCache;
use std::sync::Mutex;

/// What a tile's bytes depend on, and nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileKey {
    /// Rows of the bar.
    pub m: u64,
    /// Columns of the bar.
    pub n: u64,
    /// Pyramid level.
    pub level: u32,
    /// Tile column.
    pub col: u64,
    /// Tile row.
    pub row: u64,
    /// Shade and colours.
    pub style: TileStyle,
}

impl TileKey {
    /// The key of one tile of one pyramid in one style.
    pub fn new(pyramid: &Pyramid, rect: &TileRect, style: &TileStyle) -> TileKey {
        TileKey {
            m: pyramid.m(),
            n: pyramid.n(),
            level: rect.level,
            col: rect.col,
            row: rect.row,
            style: *style,
        }
    }

    /// A strong ETag (RFC 9110 §8.8.3), derived from everything that decides the tile's
    /// bytes: the tile (bar, level, column, row), its style, the compression and the version
    /// of chompute that drew it (its `Software` text; its `Description` names the tile). No
    /// setting of the server (cache size, backend, command line) changes the bytes. FNV-1a
    /// over the canonical name, stable across runs.
    pub fn etag(&self) -> String {
        let colours = match self.style.colours {
            None => String::from("default"),
            Some([p, n]) => format!(
                "{:02x}{:02x}{:02x},{:02x}{:02x}{:02x}",
                p[0], p[1], p[2], n[0], n[1], n[2]
            ),
        };
        let name = format!(
            "chompute {} {}x{} {} {}_{} {} {colours} {}",
            env!("CARGO_PKG_VERSION"),
            self.m,
            self.n,
            self.level,
            self.col,
            self.row,
            self.style.shade.name(),
            super::TILE_COMPRESSION.name()
        );
        format!("\"{:016x}\"", fnv1a(name.as_bytes()))
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every run and every machine, for ETags.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| {
        (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Bytes counted for an entry beyond its PNG: the key, the list links, the hash slot.
const ENTRY_OVERHEAD: usize = 160;

struct Inner {
    lru: LruCache<TileKey, Bytes>,
    bytes: usize,
}

/// Encoded tiles, at most `capacity` bytes in all (entries counted with their overhead).
pub struct TileCache {
    inner: Mutex<Inner>,
    capacity: usize,
}

impl TileCache {
    /// A cache holding at most `capacity` bytes of encoded tiles.
    pub fn new(capacity: usize) -> TileCache {
        TileCache {
            inner: Mutex::new(Inner {
                lru: LruCache::unbounded(),
                bytes: 0,
            }),
            capacity,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves a consistent LRU (every operation is one
        // call), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The encoded tile for `key`, if cached (and marks it recently used).
    pub fn get(&self, key: &TileKey) -> Option<Bytes> {
        self.lock().lru.get(key).cloned()
    }

    /// Insert a tile, dropping the least recently used ones until the total fits. A tile
    /// larger than the whole cache is not kept.
    pub fn put(&self, key: TileKey, tile: Bytes) {
        let cost = tile.len() + ENTRY_OVERHEAD;
        if cost > self.capacity {
            return;
        }
        let mut inner = self.lock();
        if let Some(old) = inner.lru.put(key, tile) {
            inner.bytes -= old.len() + ENTRY_OVERHEAD;
        }
        inner.bytes += cost;
        while inner.bytes > self.capacity {
            match inner.lru.pop_lru() {
                Some((_, old)) => inner.bytes -= old.len() + ENTRY_OVERHEAD,
                None => break,
            }
        }
    }

    /// Bytes held, overhead included.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// The number of tiles held.
    pub fn len(&self) -> usize {
        self.lock().lru.len()
    }

    /// Whether no tile is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(col: u64) -> TileKey {
        let p = Pyramid::new(1 << 40, 1 << 40).unwrap();
        TileKey::new(&p, &p.tile(40, col, 0).unwrap(), &TileStyle::default())
    }

    #[test]
    fn least_recently_used_tiles_leave_first_and_the_bound_holds() {
        let tile = |len: usize| Bytes::from(vec![7u8; len]);
        let cache = TileCache::new(3 * (1000 + ENTRY_OVERHEAD));
        for col in 0..3 {
            cache.put(key(col), tile(1000));
        }
        assert_eq!(cache.len(), 3);
        assert!(cache.get(&key(0)).is_some()); // 0 is now the most recent
        cache.put(key(3), tile(1000));
        assert!(cache.get(&key(1)).is_none(), "the least recently used left");
        assert!(cache.get(&key(0)).is_some() && cache.get(&key(3)).is_some());
        cache.put(key(4), tile(2500));
        assert!(cache.bytes() <= 3 * (1000 + ENTRY_OVERHEAD));
        assert!(cache.get(&key(4)).is_some());
        cache.put(key(5), tile(10_000));
        assert!(
            cache.get(&key(5)).is_none(),
            "larger than the cache: not kept"
        );
        // Replacing an entry counts its new size only.
        cache.put(key(4), tile(10));
        cache.put(key(4), tile(10));
        assert!(cache.bytes() <= 3 * (1000 + ENTRY_OVERHEAD));
        let empty = TileCache::new(0);
        empty.put(key(0), tile(1));
        assert!(empty.is_empty());
    }

    #[test]
    fn etags_name_the_tile() {
        assert_eq!(key(1).etag(), key(1).etag());
        assert_ne!(key(1).etag(), key(2).etag());
        let mut styled = key(1);
        styled.style.shade = crate::render::picture::shade::Shade::Log;
        assert_ne!(styled.etag(), key(1).etag());
        assert!(key(1).etag().starts_with('"') && key(1).etag().len() == 18);
    }
}
