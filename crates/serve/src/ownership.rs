//! Whose a task is: what the session answers beside the world's steps (ListTasks, subscriptions,
//! push configs) shows a caller only the tasks it owns, by its id in its tenant. The owner and the
//! modules it answers through all ask, so this module imports nothing of the crate.

use engine::World;
use engine::record::Owner;

pub fn owns(world: &World, caller: usize, ix: usize) -> bool {
    let c = &world.scenario.callers[caller];
    world.tasks[ix].owner
        == Owner {
            id: c.sym,
            tenant: c.tenant,
        }
}
