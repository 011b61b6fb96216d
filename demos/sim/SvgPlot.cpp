#include "SvgPlot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace raycar::sim {

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

// JSON has no NaN or infinity: a figure that is not finite is null.
std::string jsonNumber(double value) { return std::isfinite(value) ? number(value) : "null"; }

std::string fixed(double value, int decimals) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

namespace {
// A tick spacing of 1, 2 or 5 x 10^k, the smallest that puts at most about `ticks` on `span`.
double tickStep(double span, double ticks) {
  const double raw = span / ticks;
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double multiple : {1.0, 2.0, 5.0})
    if (multiple * decade >= raw * (1 - 1e-9)) return multiple * decade;
  return 10 * decade;
}
// Decimals a tick label of spacing `step` needs: 0.5 -> 1, 0.02 -> 2, 20 -> 0.
int tickDecimals(double step) { return std::clamp(int(-std::floor(std::log10(step) + 1e-9)), 0, 9); }
}  // namespace

// A line plot with labelled axes; equalAspect keeps metres square (top-down paths). An axis runs
// between multiples of its tick spacing around the data (a time axis from 0, not from -2.7 s,
// where it had been padded by a fraction of the span), ticked at those multiples.
std::string plot(const std::string& title, const std::string& xLabel, const std::string& yLabel,
                 const std::vector<Series>& series, bool equalAspect,
                 const std::vector<Rectangle>& rectangles) {
  const double width = 720, height = equalAspect ? 520 : 240, left = 70, right = 150, top = 30, bottom = 40;
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (const Series& s : series)
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]), y0 = std::min(y0, s.y[i]), y1 = std::max(y1, s.y[i]);
    }
  for (const Rectangle& r : rectangles)
    x0 = std::min(x0, r.x0), x1 = std::max(x1, r.x1), y0 = std::min(y0, r.y0), y1 = std::max(y1, r.y1);
  if (x0 > x1) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  // A constant series (to its values' precision) gets an axis around it.
  auto widen = [](double& low, double& high) {
    if (high - low > 1e-9 * std::max({std::fabs(low), std::fabs(high), 1.0})) return;
    const double pad = std::max(1.0, 0.01 * std::fabs(low));
    low -= pad, high += pad;
  };
  widen(x0, x1);
  widen(y0, y1);
  const double plotWidth = width - left - right, plotHeight = height - top - bottom;
  // About eight ticks along the 500 px of x, five up the 170 px of y.
  double xStep = tickStep(x1 - x0, 8), yStep = tickStep(y1 - y0, 5);
  if (equalAspect) {  // one metre is as long on both axes, the paths with a margin around them
    const double padX = (x1 - x0) * 0.04, padY = (y1 - y0) * 0.08;
    x0 -= padX, x1 += padX, y0 -= padY, y1 += padY;
    const double scale = std::max((x1 - x0) / plotWidth, (y1 - y0) / plotHeight);
    const double cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    x0 = cx - scale * plotWidth / 2, x1 = cx + scale * plotWidth / 2;
    y0 = cy - scale * plotHeight / 2, y1 = cy + scale * plotHeight / 2;
    xStep = yStep = tickStep(std::min(x1 - x0, y1 - y0), 6);
  } else {
    x0 = std::floor(x0 / xStep + 1e-9) * xStep, x1 = std::ceil(x1 / xStep - 1e-9) * xStep;
    y0 = std::floor(y0 / yStep + 1e-9) * yStep, y1 = std::ceil(y1 / yStep - 1e-9) * yStep;
  }
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * plotWidth; };
  auto py = [&](double y) { return top + (y1 - y) / (y1 - y0) * plotHeight; };
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << width << "' height='" << height
      << "' font-family='sans-serif' font-size='11'>\n"
      << "<text x='" << left << "' y='18' font-size='13' font-weight='bold'>" << title << "</text>\n"
      << "<rect x='" << left << "' y='" << top << "' width='" << plotWidth << "' height='" << plotHeight
      << "' fill='#fafafa' stroke='#888'/>\n";
  // Ticks at the multiples of each axis' spacing within it, counted by an integer (a step below
  // an ulp of the axis' values would leave a sum where it is), at most kMaxTicks; -0 is written 0.
  auto label = [](double value, int decimals) { return fixed(std::fabs(value) < 1e-12 ? 0 : value, decimals); };
  constexpr int kMaxTicks = 50;
  auto ticks = [](double low, double high, double step) {
    std::vector<double> at;
    const double first = std::ceil(low / step - 1e-9);
    for (int i = 0; i < kMaxTicks; ++i) {
      const double value = (first + i) * step;
      if (!(value <= high + step * 1e-9)) break;
      at.push_back(value);
    }
    return at;
  };
  for (const double x : ticks(x0, x1, xStep))
    svg << "<text x='" << fixed(px(x), 1) << "' y='" << height - bottom + 14 << "' text-anchor='middle'>"
        << label(x, tickDecimals(xStep)) << "</text>\n<line x1='" << fixed(px(x), 1) << "' y1='" << top << "' x2='"
        << fixed(px(x), 1) << "' y2='" << height - bottom << "' stroke='#e4e4e4'/>\n";
  for (const double y : ticks(y0, y1, yStep))
    svg << "<text x='" << left - 6 << "' y='" << fixed(py(y) + 4, 1) << "' text-anchor='end'>"
        << label(y, tickDecimals(yStep)) << "</text>\n<line x1='" << left << "' y1='" << fixed(py(y), 1) << "' x2='"
        << width - right << "' y2='" << fixed(py(y), 1) << "' stroke='#e4e4e4'/>\n";
  svg << "<text x='" << left + plotWidth / 2 << "' y='" << height - 6 << "' text-anchor='middle'>" << xLabel
      << "</text>\n<text x='14' y='" << top + plotHeight / 2 << "' transform='rotate(-90 14 " << top + plotHeight / 2
      << ")' text-anchor='middle'>" << yLabel << "</text>\n";
  for (const Rectangle& r : rectangles)
    svg << "<rect x='" << fixed(px(r.x0), 1) << "' y='" << fixed(py(r.y1), 1) << "' width='"
        << fixed(px(r.x1) - px(r.x0), 1) << "' height='" << fixed(py(r.y0) - py(r.y1), 1) << "' fill='none' stroke='"
        << r.colour << "' stroke-width='2'/>\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    svg << "<polyline fill='none' stroke='" << s.colour << "' stroke-width='1.5'"
        << (s.dashed ? " stroke-dasharray='5,4'" : "") << " points='";
    const size_t stride = std::max<size_t>(1, s.x.size() / 1500);  // at most ~1500 points a line
    for (size_t i = 0; i < s.x.size(); i += stride)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) svg << fixed(px(s.x[i]), 1) << "," << fixed(py(s.y[i]), 1) << " ";
    svg << "'/>\n<text x='" << width - right + 10 << "' y='" << top + 14 + 16 * k << "' fill='" << s.colour << "'>"
        << s.name << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

const char* const kColours[8] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

}  // namespace raycar::sim
