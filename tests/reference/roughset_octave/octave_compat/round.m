function y = round(x, n)
% ROUND(X) and MATLAB's two-argument ROUND(X, N) (N digits after the decimal point), which
% GNU Octave 7.3 lacks ("Invalid call to round"). Our code, not the authors': SFSF_F.m calls
% round(dep, 4) and OSFS_ET_c.m round(i/p, 2). ROUND(X, N) = round(X * 10^N) / 10^N with
% Octave's own round (half away from zero). MATLAB's algorithm for N digits is not
% documented; it can differ from this only for a value within rounding error of a half-way
% point (see README.md).
  if nargin < 2
    y = builtin('round', x);
  else
    s = 10 ^ n;
    y = builtin('round', x * s) / s;
  end
end
