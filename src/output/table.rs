//! Tables for people (comfy-table), as every command draws them.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

/// A boxed table for people whose rows are never broken inside a value, whatever the terminal's
/// width (kubectl's rule: whole rows, the terminal wraps them; an unknown or zero width is no
/// limit).
pub fn boxed() -> Table {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    table
}
#[cfg(test)]
mod narrow_tests {
    use super::boxed;

    #[test]
    fn a_value_is_never_broken_on_a_narrow_terminal() {
        let uid = "0f8fad5b-d9cb-469f-a165-70867728950e";
        let mut table = boxed();
        table.set_header(vec!["CLASS", "OBJECT", "UID"]);
        table.add_row(vec!["missing", "default/a-long-object-name", uid]);
        // What a 60-column terminal (or one that says 0) would ask of a dynamic table.
        for width in [60, 0] {
            table.set_width(width);
            let text = table.to_string();
            assert!(
                text.lines()
                    .any(|l| l.contains(uid) && l.contains("default/a-long-object-name")),
                "{text}"
            );
        }
    }
}
