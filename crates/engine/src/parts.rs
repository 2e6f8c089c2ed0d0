//! The parts of finished tasks merged into one result: what an `artifact: {from}` step, a
//! template's `{{result.NAME}}` and the record's view of a task's artifacts read.

use std::borrow::Cow;

use crate::data::DataMap;
use crate::task::Task;

/// Text joined with a blank line, data shallow-merged; one part is kept as it is, unchanged.
#[derive(Default)]
pub(crate) struct Parts<'s> {
    texts: Vec<Cow<'s, str>>,
    datas: Vec<Cow<'s, DataMap>>,
}

impl<'s> Parts<'s> {
    pub(crate) fn add_task(&mut self, t: &Task<'s>) {
        for a in &t.artifacts {
            if let Some(text) = a.text() {
                self.texts.push(text.to_cow());
            }
            if let Some(data) = &a.data {
                self.datas.push(data.to_cow());
            }
        }
    }

    pub(crate) fn finish(mut self) -> (Option<Cow<'s, str>>, Option<Cow<'s, DataMap>>) {
        let text = match self.texts.len() {
            0 => None,
            1 => self.texts.pop(),
            _ => Some(Cow::Owned(self.texts.join("\n\n"))),
        };
        let data = match self.datas.len() {
            0 => None,
            1 => self.datas.pop(),
            _ => {
                let mut merged = DataMap::new();
                for d in self.datas {
                    for (k, v) in d.iter() {
                        merged.insert(k.clone(), v.clone());
                    }
                }
                Some(Cow::Owned(merged))
            }
        };
        (text, data.filter(|d| !d.is_empty()))
    }
}
