//! One derived value: the key it was computed for, the value, and the [`Job`] that computes it
//! off the key path when it is large. Every value the derive step keeps is a [`Cell`].

use std::sync::atomic::AtomicBool;

use super::job::Job;

/// A value derived from the explorer's inputs, with the key it was computed for.
///
/// The revision moves each time the key does, so a value derived from this one can key on it;
/// an answer from the background counts only if it was asked for at the current revision.
/// Dropping or clearing the cell asks its background work to stop.
pub struct Cell<K, V> {
    key: Option<K>,
    revision: u64,
    value: Option<V>,
    job: Job<V>,
}

impl<K, V> Default for Cell<K, V> {
    fn default() -> Self {
        Self {
            key: None,
            revision: 0,
            value: None,
            job: Job::default(),
        }
    }
}

impl<K: PartialEq, V: Send + 'static> Cell<K, V> {
    /// Records `key`; when it differs from the last one, forgets the value (stopping any work
    /// on it) and says so: the value must be computed again.
    pub fn renew(&mut self, key: K) -> bool {
        if self.key.as_ref() == Some(&key) {
            return false;
        }
        self.key = Some(key);
        self.revision += 1;
        self.value = None;
        self.job.stop();
        true
    }

    /// Computes the value now when `key` is new (`None`: nothing to show); says whether it did.
    pub fn update(&mut self, key: K, compute: impl FnOnce() -> Option<V>) -> bool {
        let renewed = self.renew(key);
        if renewed {
            self.value = compute();
        }
        renewed
    }

    /// Sets the value for the current key.
    pub fn set(&mut self, value: Option<V>) {
        self.value = value;
    }

    /// Computes the value for the current key in the background; [`Cell::poll`] takes it.
    pub fn start(&mut self, work: impl FnOnce(&AtomicBool) -> Option<V> + Send + 'static) {
        self.job.request(self.revision, work);
    }

    /// Takes a finished background answer, if it was asked for at the current revision.
    pub fn poll(&mut self) {
        if let Some((revision, value)) = self.job.poll()
            && revision == self.revision
            && self.key.is_some()
        {
            self.value = Some(value);
        }
    }

    /// Records that the value still holds for `key`, which differs from the last one only in
    /// what it does not depend on: the value and the revision stay.
    pub fn rekey(&mut self, key: K) {
        self.key = Some(key);
    }

    /// Forgets the key and the value and stops any work on them (a closed pane's).
    pub fn clear(&mut self) {
        self.key = None;
        self.value = None;
        self.job.stop();
    }

    /// Whether the value is `wanted`; when not, forgets it.
    pub fn keep_if(&mut self, wanted: bool) -> bool {
        if !wanted {
            self.clear();
        }
        wanted
    }
}

impl<K, V> Cell<K, V> {
    /// The value, if there is one for the current key.
    #[must_use]
    pub fn get(&self) -> Option<&V> {
        self.value.as_ref()
    }

    /// The value, to change in place.
    pub fn get_mut(&mut self) -> Option<&mut V> {
        self.value.as_mut()
    }

    /// The key the value was computed for.
    #[must_use]
    pub fn key(&self) -> Option<&K> {
        self.key.as_ref()
    }

    /// Moves each time the key does.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }
}

impl<K, V: Send + 'static> Cell<K, V> {
    /// Whether a background answer is to come for the current key.
    #[must_use]
    pub fn busy(&self) -> bool {
        self.job.busy()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_computes_again_only_for_a_new_key() {
        let mut cell: Cell<u8, u32> = Cell::default();
        assert!(cell.update(1, || Some(10)));
        assert!(
            !cell.update(1, || Some(99)),
            "the same key: the value stands"
        );
        assert_eq!((cell.get(), cell.revision()), (Some(&10), 1));
        assert!(cell.update(2, || None));
        assert_eq!((cell.get(), cell.revision()), (None, 2));
        cell.rekey(3);
        assert_eq!(cell.revision(), 2, "a new key the value still holds for");
        cell.clear();
        assert!(cell.update(3, || Some(30)), "a cleared cell computes again");
    }

    #[test]
    fn a_background_answer_counts_only_for_the_key_it_was_asked_for() {
        let mut cell: Cell<u8, u32> = Cell::default();
        let (release, hold) = std::sync::mpsc::channel::<()>();
        assert!(cell.renew(1));
        cell.start(move |_| {
            hold.recv().unwrap();
            Some(1)
        });
        assert!(cell.renew(2), "superseded before its answer came");
        cell.start(|_| Some(2));
        release.send(()).unwrap();
        while cell.busy() {
            cell.poll();
            std::thread::yield_now();
        }
        assert_eq!(cell.get(), Some(&2));
    }
}
