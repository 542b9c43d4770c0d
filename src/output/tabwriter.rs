//! Tab-separated cells aligned into columns as kubectl's printers align them: Go's
//! `text/tabwriter` (as `github.com/liggitt/tabwriter`, which cli-runtime configures with a
//! minimum width of 6, a padding of 3, spaces, and `RememberWidths`: a column never narrows
//! from one flush to the next). `kubectl get -w` flushes after the objects that exist and after
//! each event, so what is written between two flushes is aligned together.

/// Text written since the last flush, and the width each column has reached.
#[derive(Debug, Clone)]
pub struct TabWriter {
    pending: String,
    remembered: Vec<usize>,
    min_width: usize,
    padding: usize,
}

impl TabWriter {
    /// cli-runtime's `GetNewTabWriter`.
    pub fn kubectl() -> Self {
        TabWriter::new(6, 3)
    }

    pub fn new(min_width: usize, padding: usize) -> Self {
        TabWriter {
            pending: String::new(),
            remembered: Vec::new(),
            min_width,
            padding,
        }
    }

    pub fn write(&mut self, text: &str) {
        self.pending.push_str(text);
    }

    /// Whether anything was written since the last flush.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// What was written since the last flush, aligned. As Go's writer, a line of one cell
    /// ends a block (what came before it is aligned without what comes after), and a last
    /// line without its newline is aligned with the rest and written without one.
    pub fn flush(&mut self) -> String {
        let text = std::mem::take(&mut self.pending);
        let mut out = String::new();
        let mut block: Vec<Vec<&str>> = Vec::new();
        let mut lines = text.split('\n').peekable();
        while let Some(line) = lines.next() {
            if lines.peek().is_none() {
                block.push(match line {
                    "" => Vec::new(),
                    _ => line.split('\t').collect(),
                });
                break;
            }
            let cells: Vec<&str> = line.split('\t').collect();
            let single = cells.len() == 1;
            block.push(cells);
            if single {
                block.push(Vec::new());
                self.format(&block, &mut out);
                block.clear();
            }
        }
        self.format(&block, &mut out);
        out
    }

    /// `lines` aligned; every line but the last ends with a newline.
    fn format(&mut self, lines: &[Vec<&str>], out: &mut String) {
        if lines.is_empty() {
            return;
        }
        let mut widths = Vec::new();
        self.block(lines, 0, lines.len(), &mut widths, out);
    }

    /// Go's `format`: the lines that have a cell in the next column form a block whose width
    /// is its widest cell's (plus padding, at least the minimum, at least what the column
    /// had); the columns to its right are aligned within it.
    fn block(
        &mut self,
        lines: &[Vec<&str>],
        from: usize,
        to: usize,
        widths: &mut Vec<usize>,
        out: &mut String,
    ) {
        let column = widths.len();
        let mut line0 = from;
        let mut this = from;
        while this < to {
            if column + 1 >= lines[this].len() {
                this += 1;
                continue;
            }
            write_lines(lines, line0, this, widths, out);
            line0 = this;
            let mut width = self.min_width;
            while this < to && column + 1 < lines[this].len() {
                width = width.max(cell_width(lines[this][column]) + self.padding);
                this += 1;
            }
            width = self.remember(widths, width);
            widths.push(width);
            self.block(lines, line0, this, widths, out);
            widths.pop();
            line0 = this;
        }
        write_lines(lines, line0, to, widths, out);
    }

    /// `RememberWidths`: the column is as wide as it ever was.
    fn remember(&mut self, widths: &[usize], width: usize) -> usize {
        let column = widths.len();
        if self.remembered.len() < column {
            self.remembered
                .extend_from_slice(&widths[self.remembered.len()..]);
        }
        match self.remembered.get(column).copied() {
            None => {
                self.remembered.push(width);
                width
            }
            Some(w) if w > width => w,
            Some(_) => {
                self.remembered[column] = width;
                width
            }
        }
    }
}

fn cell_width(cell: &str) -> usize {
    cell.chars().count()
}

fn write_lines(lines: &[Vec<&str>], from: usize, to: usize, widths: &[usize], out: &mut String) {
    for (i, line) in lines.iter().enumerate().take(to).skip(from) {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if let Some(&w) = widths.get(j) {
                out.extend(std::iter::repeat_n(' ', w.saturating_sub(cell_width(cell))));
            }
        }
        if i + 1 < lines.len() {
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_as_wide_as_their_widest_cell_plus_padding_and_never_narrow() {
        let mut w = TabWriter::kubectl();
        w.write("NAME\tRV\tDATA\na\t226\tmap[x:1]\nbb\t225\t<none>\n");
        assert_eq!(
            w.flush(),
            "NAME   RV    DATA\na      226   map[x:1]\nbb     225   <none>\n"
        );
        w.write("c\t1\tx\n");
        assert_eq!(w.flush(), "c      1     x\n");
        w.write("a-much-longer-name\t2\ty\n");
        assert_eq!(w.flush(), "a-much-longer-name   2     y\n");
    }

    #[test]
    fn a_line_without_its_newline_is_aligned_and_left_open() {
        let mut w = TabWriter::kubectl();
        w.write("a\t226bb\t225");
        assert_eq!(w.flush(), "a     226bb   225");
    }

    #[test]
    fn a_line_of_one_cell_ends_the_block_above_it() {
        let mut w = TabWriter::new(0, 1);
        w.write("a\tb\nsingle\nlonger\tc\n");
        assert_eq!(w.flush(), "a b\nsingle\nlonger c\n");
    }
}
