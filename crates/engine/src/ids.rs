//! The engine's indices: each names a thing by its position in the list that holds it (the run's
//! tasks, the scenario's agents, ...). Every layer speaks them, so this module imports nothing.

/// Index of a task in the world; `task-N` has index N − 1, so creation order is id order.
pub type TaskIx = usize;

/// Index of an agent in the scenario's `agents`.
pub type AgentIx = usize;

/// Index of a driver caller in the scenario's `callers`.
pub type CallerIx = usize;

/// Index of an alias in the scenario's `aliases`, in the order the steps define them.
pub type AliasIx = usize;

/// Index of a named result (`as`) among its agent's `results`.
pub type ResultIx = usize;

/// Index of a delegation (a `delegate` or `fan_out` of a running task) in the world.
pub type DelegationIx = usize;

/// Index of a call that streams in the record's `calls`.
pub type CallId = usize;

/// A classification level: its rank in `levels`, lowest first.
pub type Level = usize;
