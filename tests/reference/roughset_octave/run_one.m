function run_one(method, ds, datadir, outdir, srcdir, timesfile, seed, traced)
% Run one of the authors' selectors on one data set. Writes OUTDIR/<ds>_<method>_selected.csv
% (1-based indices in the order returned, comma-separated, one line; an empty file when nothing
% is selected) and appends one line to TIMESFILE.
%   method : sfsf_c | sfsf_c_raw | sfsf_f | sfsf_nk | sfsf_nk_k3 | sfsf_nr | osfs_et | osfs_et_w10
%   datadir: holds <ds>_X.csv (n x p, no header) and <ds>_y.csv (n labels, 1 = minority, 0 = rest)
%   srcdir : folder with the authors' .m files (unmodified; or the traced copies, see run_trace.m)
%   seed   : rand('state', seed) is called just before the selector (randperm in non_signf)
%   traced : 1 when called by run_trace.m (writes <ds>_<method>_selected_traced.csv, no time line)
  if nargin < 7, seed = 0; end
  if nargin < 8, traced = 0; end
  warning('off', 'Octave:shadowed-function');  % octave_compat/round.m shadows the built-in
  here = fileparts(mfilename('fullpath'));
  addpath(fullfile(here, 'octave_compat'));
  addpath(srcdir);
  pkg load statistics                 % pdist, squareform (SFSF_NK, SFSF_NR, OSFS_ET_c)
  X = dlmread(fullfile(datadir, [ds '_X.csv']), ',');
  y = dlmread(fullfile(datadir, [ds '_y.csv']));
  y = y(:);                           % the code reads Y(i,1): a column vector
  [n, p] = size(X);
  extra = '';
  rand('state', seed);
  s0 = rand('state');
  t0 = tic;
  switch method
    case 'sfsf_c'        % the paper's experiments: five equal-width intervals per feature
      [sel, tin] = SFSF_C(equal_width(X, 5), y);
      extra = 'X=equal_width(X,5)';
    case 'sfsf_c_raw'    % the values as given
      [sel, tin] = SFSF_C(X, y);
      extra = 'X as given';
    case 'sfsf_f'
      [sel, tin] = SFSF_F(X, y);
    case 'sfsf_nk'       % K = 7 (paper, section 6.3)
      [sel, tin] = SFSF_NK(X, y, 7);
      extra = 'K=7';
    case 'sfsf_nk_k3'    % K = 3: ties (the redundancy check) on ds1 and ds5
      [sel, tin] = SFSF_NK(X, y, 3);
      extra = 'K=3';
    case 'sfsf_nr'       % R = 0.3 (the middle of the paper's 0.1..0.5; it states no default)
      [sel, tin] = SFSF_NR(X, y, 0.3);
      extra = 'R=0.3';
    case 'osfs_et'       % K = 9, w = 800, increase 0.01 (paper, sections 4.1.3 and 4.2)
      [sel, tin, termR, depS] = OSFS_ET_c(X, y, 9, 800, 0.01, 0);
      extra = sprintf('K=9 width=800 increase=0.01 terminateR=%g dep_Set=%.17g', termR, depS);
    case 'osfs_et_w10'   % a short width and a larger increase: the fixtures terminate early
      [sel, tin, termR, depS] = OSFS_ET_c(X, y, 9, 10, 0.05, 0);
      extra = sprintf('K=9 width=10 increase=0.05 terminateR=%g dep_Set=%.17g', termR, depS);
    otherwise
      error('unknown method %s', method);
  end
  wall = toc(t0);
  drew = ~isequal(s0, rand('state'));  % did the call consume random numbers at all?
  sel = full(sel(:)');
  suffix = '';
  if traced, suffix = '_traced'; end
  f = fopen(fullfile(outdir, sprintf('%s_%s_selected%s.csv', ds, method, suffix)), 'w');
  if ~isempty(sel)
    txt = sprintf('%d,', sel);
    fprintf(f, '%s\n', txt(1:end-1));
  end
  fclose(f);
  if ~traced
    f = fopen(timesfile, 'a');
    fprintf(f, '%s %d x %d  %s rand(''state'',%d) %s drew_random=%d  time=%.3f s (own timer %.3f s)  n_selected=%d  selected(1-based)=[%s]\n', ...
            ds, n, p, method, seed, extra, drew, wall, tin, numel(sel), strtrim(sprintf('%d ', sel)));
    fclose(f);
  end
  printf('%s %s%s: %d selected, %.3f s\n', ds, method, suffix, numel(sel), wall);
end
