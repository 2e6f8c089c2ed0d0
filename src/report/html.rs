//! `run --format html`: placeholder.
use crate::engine::world::World;
pub fn write(_world: &World, _out: &mut dyn std::io::Write) -> std::io::Result<()> {
    Ok(())
}
