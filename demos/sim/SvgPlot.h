#pragma once
// Self-contained SVG line plots and number formatting for raycar-sim's report.html and
// raycar-sweep's sweep.html.

#include <string>
#include <vector>

namespace raycar::sim {

std::string number(double value);      // 9 significant digits: a float's figures, round-trip
std::string jsonNumber(double value);  // the same, or null when not finite (JSON has no NaN)
std::string fixed(double value, int decimals);

struct Series {
  std::string name, colour;
  std::vector<double> x, y;
  bool dashed = false;
};

struct Rectangle {
  double x0, y0, x1, y1;
  std::string colour;
};

// A line plot with labelled axes; equalAspect keeps metres square (top-down paths).
std::string plot(const std::string& title, const std::string& xLabel, const std::string& yLabel,
                 const std::vector<Series>& series, bool equalAspect = false,
                 const std::vector<Rectangle>& rectangles = {});

// Line colours, in the order plots use them.
extern const char* const kColours[8];

}  // namespace raycar::sim
