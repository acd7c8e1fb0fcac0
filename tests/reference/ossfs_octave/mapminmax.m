function y = mapminmax(x)
% MAPMINMAX  Octave stand-in for MATLAB's mapminmax(X) with its defaults (YMIN = -1, YMAX = 1).
% Written here (fsengine) from MathWorks' documented algorithm, not from MathWorks' code (which is
% not available here): every ROW of X is mapped by
%   y = (ymax - ymin) * (x - xmin) / (xmax - xmin) + ymin,
% xmin and xmax the row's minimum and maximum; a row whose xmax == xmin, or whose range is not
% finite, is returned unchanged (y = x), as the documentation states. Evaluated as
% (x - xmin) .* gain + ymin with gain = 2 / (xmax - xmin). It could not be compared with MATLAB.
% OSSFS.m calls mapminmax(X) on the n x p data, so the rows are the SAMPLES.
  ymin = -1;
  ymax = 1;
  xmin = min(x, [], 2);
  xmax = max(x, [], 2);
  xrange = xmax - xmin;
  gain = (ymax - ymin) ./ xrange;
  offset = xmin;
  same = ~isfinite(xrange) | xrange == 0;
  gain(same) = 1;
  offset(same) = ymin;
  y = (x - offset) .* gain + ymin;
end
