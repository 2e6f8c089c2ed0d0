//! Issue 10, items 3–6: `explain`, the admission `matrix` step, `coverage` and `audit`.

mod audit;
mod coverage;
mod explain;
mod goldens;
mod matrix;
