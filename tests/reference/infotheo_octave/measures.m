function measures(datadir, outdir, srcdir)
% The information measures of the authors' mi/ helpers (h.m, mi.m, cmi.m, SU.m, unmodified),
% computed with fsengine's MIToolboxMex.m, on every column of the seven fixtures and on a
% small hand-made set (measure_cases_X.csv, measure_cases_y.csv, written here). For each set
% and feature i (j = the next feature, cyclically) one row of measures.csv:
%   set, i, j, h(Xi), mi(Xi,Y), SU(Xi,Y), cmi(Xi,Y,Xj), cmi(Xi,Xj,Y), SU(Xi,Xj), mi(Xi,Xj),
%   MIToolboxMex(6,Xi,Xj) (= H(Xi|Xj))
% Y is the 0/1 label vector. The Python measures (fsengine/methods/online/_information/mitoolbox.py) and
% kernels must give every value exactly.
  warning('off', 'all');
  addpath(srcdir);
  % the hand-made set: 12 samples; negative and fractional values (floor), a constant, a
  % gap of empty states, a wide integer range, copies, MIToolbox's demo vectors
  C = [ 1  2  2  0.5   7  -1.5     0    1000  1  1  0.99;
        2  1  1  0.5   7  -0.2     5       3  1  2  1.00;
        1  2  2  1.5   7   0.3     0  -20000  2  1  1.01;
        2  1  2  1.5   7   0.7     5      17  2  2  2.50;
        1  1  1  2.5   7   1.0     0       0  1  1  2.49;
        1  2  1  2.5   7   2.9     0      99  2  1 -0.01;
        2  2  2  3.5   7  -3.01    5  123456  1  2 -0.99;
        2  1  1  3.5   7   4.0     0      -7  2  2  0.00;
        1  1  2  4.5   7   4.5     5       8  1  1  3.75;
        2  2  2  4.5   7  -2.5     0      -8  2  2  3.25;
        1  1  1  5.5   7   0.01    5       2  1  1  0.50;
        1  2  2  5.5   7   9.99    0    4000  2  2  0.51];
  yc = [1 0 1 1 0 0 1 0 0 1 0 1]';
  dlmwrite(fullfile(outdir, 'measure_cases_X.csv'), C, 'delimiter', ',', 'precision', '%.17g');
  dlmwrite(fullfile(outdir, 'measure_cases_y.csv'), yc, 'precision', '%d');
  f = fopen(fullfile(outdir, 'measures.csv'), 'w');
  fprintf(f, 'set,i,j,h_i,mi_iy,su_iy,cmi_i_y_given_j,cmi_i_j_given_y,su_ij,mi_ij,h_i_given_j\n');
  sets = {'cases', 'ds1', 'ds2', 'ds3', 'ds4', 'ds5', 'ds6', 'ds7'};
  for k = 1:numel(sets)
    s = sets{k};
    if strcmp(s, 'cases')
      X = C; y = yc;
    else
      X = dlmread(fullfile(datadir, [s '_X.csv']), ',');
      y = dlmread(fullfile(datadir, [s '_y.csv'])); y = y(:);
    end
    p = size(X, 2);
    for i = 1:p
      j = mod(i, p) + 1;
      a = X(:, i); b = X(:, j);
      fprintf(f, '%s,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n', s, i, j, h(a), ...
              mi(a, y), SU(a, y), cmi(a, y, b), cmi(a, b, y), SU(a, b), mi(a, b), ...
              MIToolboxMex(6, a, b));
    end
  end
  fclose(f);
end
