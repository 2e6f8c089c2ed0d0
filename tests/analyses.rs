//! The analyses of a run: `explain`, the admission `matrix` step, `coverage` and `audit`.

mod audit;
mod coverage;
mod explain;
mod goldens;
mod matrix;
