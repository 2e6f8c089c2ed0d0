//! Interned names: agent and caller ids, tenants, scopes and tags compare as integers on the hot path.

use std::collections::HashMap;

/// An interned string. Symbols are only compared and looked up, never iterated in hash order.
pub type Sym = u32;

#[derive(Debug, Default, Clone)]
pub struct Symbols {
    names: Vec<String>,
    /// Never walked: a fast hash with a fixed seed changes only the time.
    index: HashMap<String, Sym, foldhash::fast::FixedState>,
}

impl Symbols {
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(&sym) = self.index.get(name) {
            return sym;
        }
        let sym = Sym::try_from(self.names.len()).unwrap_or(Sym::MAX);
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), sym);
        sym
    }

    pub fn get(&self, name: &str) -> Option<Sym> {
        self.index.get(name).copied()
    }

    pub fn name(&self, sym: Sym) -> &str {
        self.names.get(sym as usize).map_or("", String::as_str)
    }
}
