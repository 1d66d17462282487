//! What every plot draws around its data, alike: the margin and label areas
//! of the chart, the axis text, the legend box and a line's legend key.

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::RGBAColor;

use super::{err, FONT};

/// A chart builder on `root` with the margin (12 px) and x label area
/// (45 px) every plot shares, and `y_label_px` for the y labels; the
/// caller adds the caption and builds the coordinates.
pub(crate) fn chart_builder<'a, 'b, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    y_label_px: u32,
) -> ChartBuilder<'a, 'b, DB> {
    let mut builder = ChartBuilder::on(root);
    builder
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(y_label_px);
    builder
}

/// The height of a chart's plotting area on `root`, about: the height of
/// `root` less caption, margins and x labels (110 px), at least 100 px.
pub(crate) fn plot_height_px<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> f64 {
    (f64::from(root.dim_in_pixel().1) - 110.0).max(100.0)
}

/// Draws the axes and grid that `mesh` configures, with the axis text
/// every plot shares (14 px tick labels, 16 px axis descriptions).
pub(crate) fn draw_mesh<X, Y, XT, YT, DB>(
    mesh: &mut MeshStyle<'_, '_, X, Y, DB>,
) -> Result<(), String>
where
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
    DB: DrawingBackend,
{
    mesh.label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .draw()
        .map_err(err)
}

/// Draws a chart's legend at `position` in the style every plot shares.
pub(crate) fn draw_legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    CT: plotters::coord::CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)
}

/// The legend key of a line series in `color`: a stroke 20 px long, 2 px
/// wide, from the key's pixel position.
pub(crate) fn line_key(color: RGBAColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
}

/// A legend key's shape: a line (curves), a dot (scatter points) or a
/// block (bars).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Key {
    Line,
    Dot,
    Block,
}

/// The height of an image whose [`legend_beside`] lists `entries`: 650 px,
/// or what the legend needs to show every entry.
pub(crate) fn legend_beside_height(entries: usize) -> u32 {
    650.max(100 + 20 * entries as u32)
}

/// Splits `root` into the chart's area and, at its right, a column holding
/// the legend of `entries` (label and colour, drawn with `key`), framed as
/// [`draw_legend`] frames one, its top at the plotting area's; returns the
/// chart's area. Beside the chart, the legend covers no data, however the
/// lines run.
pub(crate) fn legend_beside<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    entries: &[(String, RGBAColor)],
    key: Key,
) -> Result<DrawingArea<DB, Shift>, String> {
    const LINE_PX: i32 = 20;
    const KEY_PX: i32 = 30;
    const PAD: i32 = 8;
    let style = TextStyle::from((FONT, 14).into_font()).color(&BLACK);
    let mut widest = 0;
    for (label, _) in entries {
        widest = widest.max(root.estimate_text_size(label, &style).map_err(err)?.0 as i32);
    }
    let width = KEY_PX + widest + 2 * PAD;
    let (w, _) = root.dim_in_pixel();
    // At most half the image: a longer label is cut at the image's edge.
    let width = width.min(w as i32 / 2);
    let column = width + 12;
    let (chart, side) = root.split_horizontally(w as i32 - column);
    // The caption (22 px) and the chart's margin put the plotting area's
    // top about 50 px down.
    let (x0, y0) = (0, 50);
    let height = 2 * PAD + LINE_PX * entries.len() as i32;
    side.draw(&Rectangle::new(
        [(x0, y0), (x0 + width, y0 + height)],
        WHITE.mix(0.85).filled(),
    ))
    .map_err(err)?;
    side.draw(&Rectangle::new(
        [(x0, y0), (x0 + width, y0 + height)],
        BLACK,
    ))
    .map_err(err)?;
    for (i, (label, color)) in entries.iter().enumerate() {
        let y = y0 + PAD + LINE_PX * i as i32 + LINE_PX / 2;
        let x = x0 + PAD;
        match key {
            Key::Line => side.draw(&line_key(*color)((x, y))),
            Key::Dot => side.draw(&Circle::new((x + 8, y), 4, color.filled())),
            Key::Block => side.draw(&Rectangle::new(
                [(x + 1, y - 5), (x + 15, y + 5)],
                color.filled(),
            )),
        }
        .map_err(err)?;
        side.draw(&Text::new(
            label.as_str(),
            (x + KEY_PX, y),
            style.pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(err)?;
    }
    Ok(chart)
}
