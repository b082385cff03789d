//! The calls of many responses in Arrow's columnar layout (`extract_arrow`, docs/batch.md): a
//! `list<struct<id, name, arguments, error>>` array as raw buffers, so a binding can hand them
//! to pyarrow without one Python object per row.

use crate::batch::Line;
use crate::calls::Outcome;
use crate::json::to_compact_json;

/// A nullable Arrow `string` column: validity bitmap, `i32` offsets, UTF-8 data.
#[derive(Default)]
pub struct StringColumn {
    pub validity: Vec<u8>,
    pub offsets: Vec<i32>,
    pub data: Vec<u8>,
    pub nulls: usize,
    len: usize,
}

const MAX_COLUMN_BYTES: usize = i32::MAX as usize;

fn set_bit(bitmap: &mut Vec<u8>, index: usize, valid: bool) {
    if index / 8 >= bitmap.len() {
        bitmap.push(0);
    }
    if valid {
        bitmap[index / 8] |= 1 << (index % 8);
    }
}

impl StringColumn {
    fn push(&mut self, value: Option<&str>) -> Result<(), String> {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        if let Some(text) = value {
            if self.data.len() + text.len() > MAX_COLUMN_BYTES {
                return Err(
                    "the calls of this batch exceed 2 GiB of text in one column; \
                            pass smaller batches"
                        .to_owned(),
                );
            }
            self.data.extend_from_slice(text.as_bytes());
        } else {
            self.nulls += 1;
        }
        set_bit(&mut self.validity, self.len, value.is_some());
        self.len += 1;
        self.offsets.push(self.data.len() as i32);
        Ok(())
    }
}

/// One struct entry per call (valid or not), one list per row; a null row stays null.
#[derive(Default)]
pub struct CallColumns {
    pub rows: usize,
    pub row_validity: Vec<u8>,
    pub row_nulls: usize,
    pub list_offsets: Vec<i32>,
    pub id: StringColumn,
    pub name: StringColumn,
    /// The arguments object as compact JSON text (its keys vary from tool to tool).
    pub arguments: StringColumn,
    /// Why the call (or the whole row) failed; null for a good call.
    pub error: StringColumn,
}

impl CallColumns {
    /// The columns of `rows` (`None`: a null input row).
    pub fn from_lines(rows: &[Option<Line>]) -> Result<Self, String> {
        let mut columns = CallColumns {
            list_offsets: vec![0],
            ..Self::default()
        };
        for (row, line) in rows.iter().enumerate() {
            set_bit(&mut columns.row_validity, row, line.is_some());
            columns.rows += 1;
            match line.as_ref().map(|line| &line.result) {
                None => columns.row_nulls += 1,
                Some(Ok(outcomes)) => {
                    for outcome in outcomes {
                        columns.push_outcome(outcome)?;
                    }
                }
                Some(Err(error)) => columns.push_entry(None, None, None, Some(&error.message))?,
            }
            columns.list_offsets.push(columns.id.len as i32);
        }
        if columns.id.len > MAX_COLUMN_BYTES {
            return Err("more than 2**31 calls in one batch; pass smaller batches".to_owned());
        }
        Ok(columns)
    }

    fn push_outcome(&mut self, outcome: &Outcome<crate::json::Value>) -> Result<(), String> {
        match outcome {
            Outcome::Call(call) => self.push_entry(
                call.id.as_deref(),
                Some(&call.name),
                Some(&to_compact_json(&call.arguments)),
                None,
            ),
            Outcome::Invalid(invalid) => self.push_entry(
                None,
                invalid.name.as_deref(),
                None,
                Some(&invalid.message()),
            ),
        }
    }

    fn push_entry(
        &mut self,
        id: Option<&str>,
        name: Option<&str>,
        arguments: Option<&str>,
        error: Option<&str>,
    ) -> Result<(), String> {
        self.id.push(id)?;
        self.name.push(name)?;
        self.arguments.push(arguments)?;
        self.error.push(error)
    }

    /// The number of struct entries (calls and failures) over all rows.
    pub fn entries(&self) -> usize {
        self.id.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{extract_line, Locate};

    #[test]
    fn rows_become_lists_of_call_entries() {
        let options = crate::batch::tests::options(Locate::Whole, crate::body::Shape::Auto);
        let lines: Vec<&[u8]> = vec![
            br#"{"tool_calls": [{"id": "a", "name": "f", "arguments": {"x": 1}}, {"name": 3}]}"#,
            b"nope",
        ];
        let mut rows: Vec<Option<Line>> = lines
            .iter()
            .map(|l| Some(extract_line(l, &options)))
            .collect();
        rows.insert(1, None);
        let columns = CallColumns::from_lines(&rows).unwrap();
        assert_eq!((columns.rows, columns.row_nulls), (3, 1));
        assert_eq!(columns.row_validity, [0b101]);
        assert_eq!(columns.list_offsets, [0, 2, 2, 3]);
        assert_eq!(columns.id.offsets, [0, 1, 1, 1]);
        assert_eq!(columns.id.validity, [0b001]);
        assert_eq!(columns.arguments.data, br#"{"x":1}"#);
        assert_eq!(columns.error.nulls, 1);
        assert_eq!(columns.entries(), 3);
    }
}
