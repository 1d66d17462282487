//! What every plot draws around its data, alike: the margin and label areas
//! of the chart, the axis text, the legend box and a line's legend key.

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;
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
