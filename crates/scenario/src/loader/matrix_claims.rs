//! `{matrix: STEP, grid: …}`: a whole admission matrix pinned by one `expect` entry.

use crate::file::*;
use crate::yaml::Seg;
use engine::scenario::*;

use super::{Loader, Names, child};

impl Loader<'_> {
    /// `{matrix: STEP, grid: {CALLER: {AGENT: [codes]}}}`: the grid must name exactly the step's
    /// callers and agents, so an expectation pins the whole matrix, not the pairs someone remembered.
    pub(super) fn matrix_expectation(
        &mut self,
        at: &[Seg],
        n: i64,
        grid: Option<DataMap>,
        names: &Names,
        steps: &[Step],
    ) -> Option<Expectation> {
        let step = usize::try_from(n).unwrap_or(0);
        let Some(Step::Matrix { callers, agents }) = steps.get(step.wrapping_sub(1)) else {
            self.problem(
                child(at, "matrix"),
                format!("`matrix` names step {n}, which is not a matrix step of this file (steps are numbered from 1)"),
            );
            return None;
        };
        let here = child(at, "grid");
        let Some(grid) = grid else {
            self.problem(
                child(at, "matrix"),
                "a `matrix` expectation needs `grid: {CALLER: {AGENT: [codes]}}` for every pair",
            );
            return None;
        };
        let name_of = |table: &super::Table<String>, ix: usize| {
            table
                .iter()
                .find(|(_, v)| **v == ix)
                .map(|(k, _)| k.clone())
                .unwrap_or_default()
        };
        let caller_names: Vec<String> = callers
            .iter()
            .map(|&c| name_of(&names.callers, c))
            .collect();
        let agent_names: Vec<String> = agents.iter().map(|&a| name_of(&names.agents, a)).collect();
        let mut ok = true;
        for key in grid.keys() {
            if !caller_names.contains(key) {
                self.problem(
                    child(&here, key),
                    format!("`{key}` is not a caller of matrix step {step}"),
                );
                ok = false;
            }
        }
        let mut rows = Vec::with_capacity(caller_names.len());
        for c in &caller_names {
            let Some(row) = grid.get(c) else {
                self.problem(here.clone(), format!("the grid has no row for caller `{c}`: a matrix expectation gives every pair"));
                ok = false;
                continue;
            };
            let at_row = child(&here, c);
            let Some(row) = row.as_object() else {
                self.problem(at_row, "a row is a mapping `AGENT: [codes]`");
                ok = false;
                continue;
            };
            for key in row.keys() {
                if !agent_names.contains(key) {
                    self.problem(
                        child(&at_row, key),
                        format!("`{key}` is not an agent of matrix step {step}"),
                    );
                    ok = false;
                }
            }
            let mut cells = Vec::with_capacity(agent_names.len());
            for a in &agent_names {
                let at_cell = child(&at_row, a);
                let codes = match row.get(a).map(|v| v.as_array()) {
                    None => {
                        self.problem(at_row.clone(), format!("row `{c}` has no cell for agent `{a}`: a matrix expectation gives every pair"));
                        ok = false;
                        continue;
                    }
                    Some(None) => {
                        self.problem(at_cell, "a cell is a list of denial codes (`[]`: admitted)");
                        ok = false;
                        continue;
                    }
                    Some(Some(list)) => list,
                };
                let mut written = Vec::with_capacity(codes.len());
                for (j, v) in codes.iter().enumerate() {
                    match v.as_str() {
                        Some(s) => written.push(s.to_string()),
                        None => {
                            let mut p = at_cell.clone();
                            p.push(Seg::Index(j));
                            self.problem(p, "a denial code is a word such as `tenant`");
                            ok = false;
                        }
                    }
                }
                cells.push(self.denial_codes(&at_cell, written));
            }
            rows.push(cells);
        }
        ok.then_some(Expectation::Matrix { step, grid: rows })
    }
}
